package fixreport

import (
	"fmt"
	"strings"
)

// maxEdits bounds the edit distance the diff searches for. fix changes a
// few lines per object; past this the differing middle is shown as one
// replacement, so the diff stays linear in the file however it changed.
const maxEdits = 1000

// unifiedDiff is a unified diff of one file's change, with 3 lines of
// context. Common leading and trailing lines are skipped first, and the
// rest is diffed with Myers' O(ND) algorithm while the changes are few,
// with a linear greedy walk when they are many (a fix in each of 30,000
// List items): never the square of the file's size, as difflib was.
func unifiedDiff(name string, before, after []byte) string {
	a, b := lines(before), lines(after)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	writeHunks(&out, ops, 3)
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// myers returns the edit script from a to b.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b)
	}
	var trace [][]int // the furthest x on each diagonal k, per d, offset by d
	v := []int{0, 0, 0}
	for d := 0; d <= min(n+m, maxEdits); d++ {
		next := make([]int, 2*d+3)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && get(v, d-1, k-1) < get(v, d-1, k+1) {
				x = get(v, d-1, k+1) // down: insert from b
			} else {
				x = get(v, d-1, k-1) + 1 // right: delete from a
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			next[k+d+1] = x
			if x >= n && y >= m {
				trace = append(trace, next)
				return backtrack(a, b, trace)
			}
		}
		trace = append(trace, next)
		v = next
	}
	return greedy(a, b)
}

// resync is how far greedy looks ahead for the next common line.
const resync = 64

// greedy is the fallback for files changed in many places: it walks both
// sides and, where they differ, takes the nearest point (within resync
// lines on each side) where two lines agree again. Linear, and exact for
// what fix does (lines inserted, removed or replaced here and there).
func greedy(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	x, y := 0, 0
	for x < len(a) && y < len(b) {
		if a[x] == b[y] {
			ops = append(ops, diffOp{' ', a[x]})
			x, y = x+1, y+1
			continue
		}
		di, dj := 1, 1 // no resync point: replace one line
	search:
		for s := 1; s <= 2*resync; s++ {
			for i := max(0, s-resync); i <= min(s, resync); i++ {
				j := s - i
				if x+i < len(a) && y+j < len(b) && a[x+i] == b[y+j] && (x+i+1 == len(a) || y+j+1 == len(b) || a[x+i+1] == b[y+j+1]) {
					di, dj = i, j
					break search
				}
			}
		}
		for _, l := range a[x : x+di] {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b[y : y+dj] {
			ops = append(ops, diffOp{'+', l})
		}
		x, y = x+di, y+dj
	}
	for _, l := range a[x:] {
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b[y:] {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}

// get reads diagonal k of the row for d (rows are offset by d+1).
func get(row []int, d, k int) int {
	i := k + d + 1
	if d < 0 || i < 0 || i >= len(row) {
		return 0
	}
	return row[i]
}

func backtrack(a, b []string, trace [][]int) []diffOp {
	var rev []diffOp
	x, y := len(a), len(b)
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		prev := trace[d-1]
		var pk int
		if k == -d || k != d && get(prev, d-1, k-1) < get(prev, d-1, k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(prev, d-1, pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, diffOp{' ', a[x]})
		}
		if x > px {
			x--
			rev = append(rev, diffOp{'-', a[x]})
		} else {
			y--
			rev = append(rev, diffOp{'+', b[y]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, diffOp{' ', a[x]})
	}
	ops := make([]diffOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

func replaceAll(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}

// writeHunks writes the changes of ops with ctx lines of context around
// each, merging hunks whose context would touch.
func writeHunks(out *strings.Builder, ops []diffOp, ctx int) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*ctx {
				break
			}
		}
		end = min(len(ops), end+ctx)
		aStart, bStart := lineNumbers(ops[:start])
		aLen, bLen := lineNumbers(ops[start:end])
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
		}
		i = end
	}
}

// lineNumbers counts the lines of a and of b in ops.
func lineNumbers(ops []diffOp) (na, nb int) {
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	return na, nb
}

// hunkRange formats a range as diff does: "start,len", "start" for one
// line, and the line before for none.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprint(before + 1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
