package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// spawn starts a process with its output in <dir>/<name>.log and records its
// PID in <dir>/pids.
func (cp *ControlPlane) spawn(name, bin string, args ...string) error {
	logPath := cp.LogPath(name)
	// Appended to: a restarted process (RestartScheduler) keeps one log.
	logFile, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = cp.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("controlplane: starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	replaced := false
	for i, old := range cp.procs {
		if old.name == name {
			cp.procs[i], replaced = p, true
		}
	}
	if !replaced {
		cp.procs = append(cp.procs, p)
	}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	f, err := os.OpenFile(filepath.Join(cp.Dir, "pids"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s %d\n", name, cmd.Process.Pid)
	return err
}

// waitFor polls check every 100ms until it reports ready, the process exits,
// or ctx ends. Errors carry the tail of the process log.
func (cp *ControlPlane) waitFor(ctx context.Context, what string, p *proc, c *http.Client,
	check func(*http.Client) (bool, string)) error {
	start := time.Now()
	last := ""
	for {
		ok, detail := check(c)
		if ok {
			return nil
		}
		last = detail
		select {
		case <-p.done:
			return fmt.Errorf("controlplane: %s exited (%v) while waiting for %s; last probe: %s\n--- tail of %s ---\n%s",
				p.name, p.err, what, strings.TrimSpace(last), p.logPath, tail(p.logPath, 40))
		case <-ctx.Done():
			return fmt.Errorf("controlplane: timed out after %s waiting for %s (%v); last probe: %s\n--- tail of %s ---\n%s",
				time.Since(start).Round(time.Millisecond), what, ctx.Err(), strings.TrimSpace(last), p.logPath, tail(p.logPath, 40))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
