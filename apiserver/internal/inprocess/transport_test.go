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

package inprocess

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	"k8s.io/client-go/rest"
)

func TestRoundTrip(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("X-Request-URI", r.RequestURI)
			w.WriteHeader(http.StatusCreated)
			w.Header().Set("X-After", "too late") // not sent, as with net/http
			_, _ = w.Write(append([]byte(r.Method+" "), b...))
		case "/nothing":
		case "/panic":
			panic("boom")
		}
	})
	client := &http.Client{Transport: &Transport{Handler: handler}}
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
		header                   map[string]string
	}{
		{name: "a body and a status", method: http.MethodPost, path: "/echo?a=b", body: "payload", status: http.StatusCreated, want: "POST payload",
			header: map[string]string{"Content-Type": "text/plain", "X-Request-URI": "/echo?a=b", "X-After": ""}},
		{name: "no body", method: http.MethodGet, path: "/echo", status: http.StatusCreated, want: "GET "},
		{name: "a handler that writes nothing", method: http.MethodGet, path: "/nothing", status: http.StatusOK},
		{name: "a handler that panics", method: http.MethodGet, path: "/panic", status: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, err := http.NewRequest(tt.method, "https://127.0.0.1:6443"+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if tt.path == "/panic" {
				if err == nil {
					t.Errorf("reading the body of a panicked handler: no error")
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.path != "/panic" && string(got) != tt.want {
				t.Errorf("body %q, want %q", got, tt.want)
			}
			for k, v := range tt.header {
				if resp.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, resp.Header.Get(k), v)
				}
			}
		})
	}
}

// A watch: the header and each flushed event reach the client before the handler is done,
// and the client closing the body ends the handler.
func TestStreaming(t *testing.T) {
	ended := make(chan error, 1)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if !ok {
			t.Error("the writer is no http.Flusher")
			return
		}
		flusher.Flush()
		for i := 0; ; i++ {
			if _, err := io.WriteString(w, "event\n"); err != nil {
				ended <- r.Context().Err()
				return
			}
			flusher.Flush()
		}
	})
	client := &http.Client{Transport: &Transport{Handler: handler}}
	resp, err := client.Get("https://127.0.0.1:6443/watch")
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	for range 3 {
		if !lines.Scan() || lines.Text() != "event" {
			t.Fatalf("want an event, got %q (%v)", lines.Text(), lines.Err())
		}
	}
	resp.Body.Close()
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the handler's context after the client closed the body: %v, want canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still writes after the client closed the body")
	}
}

// The client's context cancelled before the handler answers: the round trip ends with it,
// and so does the handler's context.
func TestCancelBeforeHeader(t *testing.T) {
	handlerDone := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		close(handlerDone)
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:6443/slow", nil)
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	if _, err := (&Transport{Handler: handler}).RoundTrip(req); err != context.Canceled {
		t.Errorf("round trip: %v, want canceled", err)
	}
	select {
	case <-handlerDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
}

// The client's context cancelled after the header, with the body neither read nor closed:
// the handler's next write fails, and a read of the body says why.
func TestCancelAfterHeader(t *testing.T) {
	ended := make(chan error, 1)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		for {
			if _, err := io.WriteString(w, "event\n"); err != nil {
				ended <- err
				return
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:6443/watch", nil)
	resp, err := (&Transport{Handler: handler}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler is still blocked writing after the client's context was cancelled")
	}
	if _, err := io.ReadAll(resp.Body); err != context.Canceled {
		t.Errorf("reading the body after the cancel: %v, want canceled", err)
	}
}

// The request's body is closed once the handler is done, as net/http's server does.
func TestRequestBodyClosed(t *testing.T) {
	body := &closeRecorder{Reader: strings.NewReader("x"), closed: make(chan struct{})}
	req, _ := http.NewRequest(http.MethodPost, "https://127.0.0.1:6443/", body)
	resp, err := (&Transport{Handler: http.NotFoundHandler()}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	select {
	case <-body.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the request's body was not closed")
	}
}

type closeRecorder struct {
	io.Reader
	closed chan struct{}
}

func (c *closeRecorder) Close() error {
	close(c.closed)
	return nil
}

// The apiserver's filters wrap the writer and serve watches only through a writer that
// flushes and notifies of the client's close, as HTTP/2's does.
func TestAPIServerWrappers(t *testing.T) {
	w := &responseWriter{header: http.Header{}, written: make(chan struct{})}
	if _, ok := any(w).(responsewriter.CloseNotifierFlusher); !ok {
		t.Fatal("the writer is no CloseNotifierFlusher")
	}
}

func TestConfig(t *testing.T) {
	loopback := &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "token",
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), ServerName: "apiserver-loopback-client"}}
	c := Config(loopback, http.NotFoundHandler())
	if _, err := rest.HTTPClientFor(c); err != nil {
		t.Fatalf("a client of the in-process config: %v", err)
	}
	if c.BearerToken != "token" || c.Host != loopback.Host {
		t.Errorf("credentials or host lost: %+v", c)
	}
	if len(loopback.CAData) == 0 {
		t.Error("the loopback configuration was changed")
	}
	// The bearer token reaches the handler.
	got := make(chan string, 1)
	c = Config(loopback, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(c.Host + "/api")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a := <-got; a != "Bearer token" {
		t.Errorf("Authorization %q, want the bearer token", a)
	}
}
