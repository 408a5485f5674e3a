package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// RepoRoot finds the root of the fed repository from the working directory up.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "hack", "tools", "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the fed repository")
		}
		dir = parent
	}
}

// Shared returns the lab that `make up` runs in the repository's .lab when it is running and
// ready; otherwise it starts a lab of its own in a temporary directory. The returned stop
// function stops and removes only a lab Shared started, and reports any of its processes
// still running afterwards.
func Shared(ctx context.Context) (*Lab, func() error, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	bin := filepath.Join(root, "bin")
	if _, err := os.Stat(filepath.Join(root, ".lab", "lab.json")); err == nil {
		// Processes a test restarts in this lab must outlive the test, like the rest of it.
		l, err := New(Options{Dir: filepath.Join(root, ".lab"), BinDir: bin, Detach: true})
		if err == nil && l.Running() && l.Host.readyz(ctx) == nil {
			return l, func() error { return nil }, nil
		}
	}
	dir, err := os.MkdirTemp("", "fed-lab-")
	if err != nil {
		return nil, nil, err
	}
	// LAB_NODES=real (make test) adds the real node and its install host.
	l, err := New(Options{Dir: dir, BinDir: bin, Out: os.Stderr, RealNode: os.Getenv("LAB_NODES") == "real"})
	if err != nil {
		return nil, nil, err
	}
	stop := func() error {
		err := l.Down()
		if left := l.RunningProcesses(); len(left) > 0 {
			err = errors.Join(err, fmt.Errorf("lab processes still running after it was stopped: %v", left))
		}
		return errors.Join(err, os.RemoveAll(dir))
	}
	if err := l.Up(ctx); err != nil {
		_ = stop()
		return nil, nil, err
	}
	return l, stop, nil
}
