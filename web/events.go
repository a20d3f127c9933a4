package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/tasks"
)

// pollEvery is how often the server-sent event streams look for changes.
// Task files and logs are plain files written by other processes (the
// agent a task run starts), so the stream polls the same library calls
// the pages use rather than watching a second source of truth.
const pollEvery = 300 * time.Millisecond

// sse starts a server-sent event stream.
func sse(w http.ResponseWriter) (send func(event, data string) error, ok bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		refuse(w, http.StatusInternalServerError, "streaming unsupported")
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return func(event, data string) error {
		var b strings.Builder
		fmt.Fprintf(&b, "event: %s\n", event)
		for _, l := range strings.Split(data, "\n") {
			fmt.Fprintf(&b, "data: %s\n", l)
		}
		b.WriteString("\n")
		if _, err := w.Write([]byte(b.String())); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}, true
}

// tooManyStreams refuses a stream beyond maxStreams.
func tooManyStreams(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "5")
	refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("too many open event streams (%d): close a board or a task page", maxStreams))
}

// taskEvents streams the task list (task list --json) each time it
// changes; the board page redraws itself from it. Every stream of the
// same list shares one feed.
func (s *Server) taskEvents(w http.ResponseWriter, r *http.Request) {
	if !s.streams.acquire() {
		tooManyStreams(w)
		return
	}
	defer s.streams.release()
	status, limit := r.URL.Query().Get("status"), intParam(r, "limit", 50)
	updates, stop := s.streams.subscribe(fmt.Sprintf("tasks\x00%s\x00%d", status, limit), func(ctx context.Context) ([]byte, error) {
		return s.taskListJSON(ctx, status, limit)
	})
	defer stop()
	send, ok := sse(w)
	if !ok {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case data := <-updates:
			if send("tasks", string(data)) != nil {
				return
			}
		}
	}
}

func (s *Server) taskListJSON(ctx context.Context, status string, limit int) ([]byte, error) {
	repo, err := gitops.Open(s.dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	ts, err := tasks.Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	l, err := ts.List(status, limit)
	if err != nil {
		return nil, err
	}
	return schemas.Encode(l)
}

// taskLog streams a task's log: what is there, then what a running agent
// appends, until the run ends ("end" event).
func (s *Server) taskLog(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	repo, err := gitops.Open(s.dir)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer repo.Close()
	ts, err := tasks.Open(r.Context(), repo)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer ts.Close()
	first, err := ts.Log(id, 1000, 0, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !s.streams.acquire() {
		tooManyStreams(w)
		return
	}
	defer s.streams.release()
	send, ok := sse(w)
	if !ok {
		return
	}
	if first.Content != "" && send("log", strings.TrimSuffix(first.Content, "\n")) != nil {
		return
	}
	offset, live := first.ByteOffset, first.Live
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for live {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		next, err := ts.Log(id, 1000, offset, "")
		if err != nil {
			break
		}
		if next.ByteOffset < offset {
			offset = 0 // the live log was moved into git: read it whole
			continue
		}
		if next.Content != "" && send("log", strings.TrimSuffix(next.Content, "\n")) != nil {
			return
		}
		offset, live = next.ByteOffset, next.Live
	}
	_ = send("end", "the run has ended")
}
