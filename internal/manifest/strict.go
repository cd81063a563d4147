package manifest

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// DecodeStrict decodes a single-document YAML or JSON file into v, as
// winkube reads its own versioned files: unknown fields are errors, and
// every problem is reported at once (errors.Join of *Error).
func DecodeStrict(file string, data []byte, v any) error {
	root, perr := parseYAML(file, 1, data)
	if perr != nil {
		return perr
	}
	if root == nil {
		return &Error{File: file, Line: 1, Msg: "file is empty", Class: ErrInvalid}
	}
	d := decoder{file: file, strict: true}
	rv := reflect.ValueOf(v).Elem()
	d.value(root, rv, planOf(rv.Type()))
	if len(d.errs) == 0 {
		return nil
	}
	errs := make([]error, len(d.errs))
	for i, e := range d.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// didYouMean suggests the known field closest to name.
func didYouMean(name string, fields map[string]fieldPlan) string {
	best, bestD := "", 3
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if d := EditDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return "remove it; known fields are " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// EditDistance is the Levenshtein distance of a and b, by bytes: what a
// "did you mean" suggestion ranks known names by.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
