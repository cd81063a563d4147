// Command imagebench measures image resolution against the in-process
// registry (see hack/bench-images.sh):
//
//	go run ./hack/imagebench -n 1000            # cold and cached resolution of n unique references
//	go run ./hack/imagebench -corpus DIR -out DIR2 -cache C
//	    # copies the corpus to DIR2 with every image moved to a local
//	    # registry, pushes an image per reference (platform as its tag
//	    # implies), warms cache C, and keeps serving until stdin closes
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/winkube/winkube/internal/registry"
	"github.com/winkube/winkube/internal/registry/registrytest"
	"github.com/winkube/winkube/internal/winsupport"
)

func main() {
	n := flag.Int("n", 1000, "unique references to resolve")
	jobs = flag.Int("jobs", 16, "requests in flight")
	corpus := flag.String("corpus", "", "corpus folder to move onto the local registry")
	out := flag.String("out", "", "where the moved corpus goes")
	cache := flag.String("cache", "", "image cache to warm for the moved corpus")
	flag.Parse()
	s, err := registrytest.Start()
	if err != nil {
		fail(err)
	}
	defer s.Close()
	if *corpus != "" {
		if err := moveCorpus(s, *corpus, *out, *cache); err != nil {
			fail(err)
		}
		fmt.Println(s.Host)
		io.Copy(io.Discard, os.Stdin) // serve until the script is done
		return
	}
	if err := resolveN(s, *n); err != nil {
		fail(err)
	}
}

var jobs *int

func fail(err error) {
	fmt.Fprintln(os.Stderr, "imagebench:", err)
	os.Exit(2)
}

// resolveN pushes n unique single-platform Windows images, then resolves
// them all with an empty cache and again from the cache.
func resolveN(s *registrytest.Server, n int) error {
	refs := make([]string, n)
	for i := range refs {
		if _, err := s.PushImage(fmt.Sprintf("bench/app%d:1.0", i), registrytest.Windows("10.0.20348.2966"), int64(i)); err != nil {
			return err
		}
		refs[i] = fmt.Sprintf("%s/bench/app%d:1.0", s.Host, i)
	}
	dir, err := os.MkdirTemp("", "imagebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	before := s.Requests.Load()
	for _, pass := range []string{"cold", "cached"} {
		r, err := registry.New(registry.Options{CacheDir: dir, Insecure: []string{s.Host}, Offline: pass == "cached", Jobs: *jobs})
		if err != nil {
			return err
		}
		start, cpu0 := time.Now(), cpuTime()
		found, errs := r.ResolveAll(context.Background(), refs)
		d, cpu := time.Since(start), cpuTime()-cpu0
		if len(errs) > 0 || len(found) != n {
			return fmt.Errorf("%s: %d resolved, %d failed", pass, len(found), len(errs))
		}
		fmt.Printf("%s: %d references in %.3f s, %.3f s CPU (%d registry requests)\n", pass, n, d.Seconds(), cpu.Seconds(), s.Requests.Load()-before)
		before = s.Requests.Load()
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("peak RSS (registry, pushes and resolver in one process): %d MB\n", ru.Maxrss/1024)
	return nil
}

// cpuTime is the process's user and system CPU time so far (the
// registry's included: it runs in this process).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var imageRE = regexp.MustCompile(`(?m)^(\s*-?\s*image:\s*)"?([^"\s#]+)"?`)

// moveCorpus rewrites every image reference onto the local registry,
// pushes one image per reference with the platform the tag table gives
// it, and resolves them all into the cache.
func moveCorpus(s *registrytest.Server, from, to, cache string) error {
	m := winsupport.Default()
	seen := map[string]bool{}
	var refs []string
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var perr error
		b = imageRE.ReplaceAllFunc(b, func(line []byte) []byte {
			g := imageRE.FindSubmatch(line)
			ref := string(g[2])
			img := m.ParseImage(ref)
			local := s.Host + "/" + strings.TrimPrefix(img.Repo, hostOf(img.Repo)+"/")
			if img.Tag != "" {
				local += ":" + img.Tag
			}
			if !seen[local] {
				seen[local] = true
				refs = append(refs, local)
				if err := push(s, strings.TrimPrefix(local, s.Host+"/"), img, len(refs)); err != nil && perr == nil {
					perr = err
				}
			}
			return append(append([]byte{}, g[1]...), local...)
		})
		if perr != nil {
			return perr
		}
		dest := filepath.Join(to, strings.TrimPrefix(path, from))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dest, b, 0o644)
	})
	if err != nil {
		return err
	}
	r, err := registry.New(registry.Options{CacheDir: cache, Insecure: []string{s.Host}})
	if err != nil {
		return err
	}
	if _, errs := r.ResolveAll(context.Background(), refs); len(errs) > 0 {
		return fmt.Errorf("warming the cache: %d of %d references failed", len(errs), len(refs))
	}
	fmt.Fprintf(os.Stderr, "imagebench: %d unique images on %s\n", len(refs), s.Host)
	return nil
}

func hostOf(repo string) string { return repo[:strings.Index(repo, "/")] }

// push publishes what the tag table says of the image: a Windows image
// of its build, an index for a multi-platform repository, else Linux.
func push(s *registrytest.Server, ref string, img winsupport.Image, seed int) error {
	var err error
	switch {
	case img.Build != nil:
		_, err = s.PushImage(ref, registrytest.Windows(img.Build.Build+".1"), int64(seed))
	case img.Platform == winsupport.PlatformWindows:
		_, err = s.PushImage(ref, registrytest.Windows("10.0.20348.1"), int64(seed))
	case img.Platform == winsupport.PlatformMulti:
		_, err = s.PushIndex(ref, registrytest.Linux("amd64"), registrytest.Windows("10.0.17763.1"), registrytest.Windows("10.0.20348.1"), registrytest.Windows("10.0.26100.1"))
	default:
		_, err = s.PushImage(ref, registrytest.Linux("amd64"), int64(seed))
	}
	return err
}
