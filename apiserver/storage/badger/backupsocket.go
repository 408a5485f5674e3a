/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package badger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// The backup socket: HTTP over a unix socket in the data directory, served by the process
// that has the database open. GET /backup answers 200 with the backup as its body, the
// revision it is taken at in the Fed-Backup-Revision header, and the error that cut it
// short, if one did, in the Fed-Backup-Error trailer (a body that ends without the
// trailer's chunk was cut short too).
//
// Who may take a backup is who may use the socket: its mode is 0600 and it lives in the data
// directory (which Badger creates 0700), so the same users as those who could copy the
// database's files.
const (
	// BackupSocket is the socket's name in the data directory.
	BackupSocket = "backup.sock"

	backupPath     = "/backup"
	revisionHeader = "Fed-Backup-Revision"
	errorTrailer   = "Fed-Backup-Error"
	backupStall    = time.Minute
)

// errNoServer: no process answers on the backup socket.
var errNoServer = errors.New("no server on the backup socket")

// ServeBackups serves backups of db on <dir>/backup.sock until stop is called; dir is the
// directory db was opened in. A socket left there by a process that ended without removing
// it is replaced: db is open, so no other process serves this directory.
func ServeBackups(db *DB, dir string) (stop func() error, err error) {
	path := filepath.Join(dir, BackupSocket)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s is in the way of the backup socket: it is not a socket", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening for backups on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+backupPath, db.serveBackup)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.Errorf("backup socket %s: %v", path, err)
		}
	}()
	// Close removes the socket; a backup streaming then stops at its next write, and the
	// database's Close waits for it to let go of its snapshot. Stop may be called again.
	return sync.OnceValue(func() error {
		cancel()
		return srv.Close()
	}), nil
}

// serveBackup streams a backup of the newest revision.
func (db *DB) serveBackup(w http.ResponseWriter, r *http.Request) {
	rev, release, err := db.pinBackup()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer release()
	klog.Infof("backup at revision %d: streaming", rev)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set(revisionHeader, strconv.FormatInt(rev, 10))
	w.Header().Set("Trailer", errorTrailer)
	w.WriteHeader(http.StatusOK)
	// A reader that takes nothing for backupStall ends the backup, which would otherwise
	// hold back compaction for as long as it waits.
	rc := http.NewResponseController(w)
	out := writerFunc(func(p []byte) (int, error) {
		if err := rc.SetWriteDeadline(time.Now().Add(backupStall)); err != nil {
			return 0, err
		}
		return w.Write(p)
	})
	if err := streamBackup(r.Context(), db.bdb, rev, out); err != nil {
		klog.Warningf("backup at revision %d: %v", rev, err)
		w.Header().Set(errorTrailer, strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	klog.Infof("backup at revision %d: done", rev)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// backupFromServer asks the process serving <dir>/backup.sock for a backup and writes it to
// w. It returns errNoServer when none answers there.
func backupFromServer(dir string, w io.Writer) (int64, error) {
	path := filepath.Join(dir, BackupSocket)
	var dialErr error
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "unix", path)
			dialErr = err
			return conn, err
		},
		DisableKeepAlives: true,
	}}
	resp, err := client.Get("http://fed-apiserver" + backupPath)
	// No socket, one left by a process that is gone, or a path too long for one.
	if err != nil && (errors.Is(dialErr, syscall.ENOENT) || errors.Is(dialErr, syscall.ECONNREFUSED) || errors.Is(dialErr, syscall.EINVAL)) {
		return 0, errNoServer
	}
	if err != nil {
		return 0, fmt.Errorf("asking fed-apiserver for a backup on %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return 0, fmt.Errorf("fed-apiserver on %s refused the backup: %s: %s", path, resp.Status, strings.TrimSpace(string(msg)))
	}
	rev, err := strconv.ParseInt(resp.Header.Get(revisionHeader), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("fed-apiserver on %s sent no revision with the backup: %w", path, err)
	}
	if _, err := io.Copy(w, resp.Body); errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, fmt.Errorf("the backup at revision %d from fed-apiserver on %s was cut off (did the server stop?): %w", rev, path, err)
	} else if err != nil {
		return 0, fmt.Errorf("backup at revision %d from fed-apiserver on %s: %w", rev, path, err)
	}
	if msg := resp.Trailer.Get(errorTrailer); msg != "" {
		return 0, fmt.Errorf("backup at revision %d from fed-apiserver on %s failed: %s", rev, path, msg)
	}
	return rev, nil
}
