package manifest

import (
	"context"
	"fmt"
	"io"
)

// MaxInputSize bounds what is read from one input, whatever size the file
// claims to have: a /dev/zero, a growing log or a stdin that never ends
// stops here.
const MaxInputSize = 1 << 30

// maxInput is MaxInputSize but for tests.
var maxInput int64 = MaxInputSize

// Limit returns a reader of r that fails with an *Error of class
// ErrTooLarge once more than MaxInputSize bytes were read.
func Limit(name string, r io.Reader) io.Reader {
	return LimitReader(r, maxInput, func() error { return TooLarge(name) })
}

// LimitReader returns a reader of r that reads max bytes and then fails
// with over() if r holds more: unlike io.LimitReader, a longer input is an
// error, not a silent end. Every bounded stream winkube reads (an input,
// a registry's response) is cut this way.
func LimitReader(r io.Reader, max int64, over func() error) io.Reader {
	return &limited{r: r, left: max, over: over}
}

type limited struct {
	r    io.Reader
	left int64
	over func() error
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte past the limit tells an input of exactly the limit
		// from a longer one.
		var b [1]byte
		if n, err := l.r.Read(b[:]); n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
		return 0, l.over()
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// TooLarge is the error for an input over the size limit.
func TooLarge(name string) *Error {
	return &Error{File: name, Msg: fmt.Sprintf("input is larger than %d MiB", maxInput>>20),
		Hint: "split it into smaller files", Class: ErrTooLarge}
}

// ReadAllLimited reads all of r, up to the input size limit, stopping with
// ctx's error when ctx is done, even while a read blocks (a terminal or a
// pipe whose writer never closes it).
func ReadAllLimited(ctx context.Context, name string, r io.Reader) ([]byte, error) {
	return io.ReadAll(ContextReader(ctx, Limit(name, r)))
}

// ContextReader returns a reader of r whose reads end with ctx's cause
// once ctx is done. A read blocked in r is left behind in a goroutine,
// which is fine for the process's stdin at exit.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	if c.ctx.Done() == nil {
		return c.r.Read(p)
	}
	buf := make([]byte, len(p)) // the abandoned read must not write into p later
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}

// checkContext returns r, or when ctx can end a reader of r that checks
// ctx before each read. Cheap (no goroutine): for files, whose reads
// return; stdin's blocking reads go through ContextReader.
func checkContext(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxCheck{ctx: ctx, r: r}
}

type ctxCheck struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxCheck) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}
