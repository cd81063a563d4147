// Command gencorpus writes a generated hybrid Linux/Windows manifest
// corpus for benchmarks (see hack/bench-lint.sh):
//
//	go run ./hack/gencorpus -n 10000 -dir /tmp/c10k      # one file per application
//	go run ./hack/gencorpus -n 10000 -file /tmp/c10k.yaml # one multi-document file
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/winkube/winkube/test/corpusgen"
)

func main() {
	n := flag.Int("n", 10_000, "number of objects")
	seed := flag.Uint64("seed", 1, "seed; the same seed gives the same corpus")
	unreadable := flag.Bool("unreadable", false, "include the few documents that fail to load (kube-score stops at the first)")
	dir := flag.String("dir", "", "write one file per application into this folder")
	file := flag.String("file", "", "write one multi-document file")
	flag.Parse()
	if (*dir == "") == (*file == "") {
		fmt.Fprintln(os.Stderr, "gencorpus: give exactly one of -dir or -file")
		os.Exit(2)
	}
	st, err := write(corpusgen.Options{Objects: *n, Seed: *seed, Unreadable: *unreadable}, *dir, *file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gencorpus: %d objects (%d workloads, %d Windows) in %d files, %.1f MB, %v\n",
		st.Objects, st.Workloads, st.Windows, st.Files, float64(st.Bytes)/1e6, st.Kinds)
}

func write(o corpusgen.Options, dir, file string) (corpusgen.Stats, error) {
	if dir != "" {
		return corpusgen.WriteFiles(dir, o)
	}
	f, err := os.Create(file)
	if err != nil {
		return corpusgen.Stats{}, err
	}
	st, err := corpusgen.WriteStream(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}
