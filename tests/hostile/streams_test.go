package hostile

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestEventStreamsAreCapped: 300 clients open the board's event stream
// at once. Before issue 28 every one was accepted and polled on its own
// (500 streams: 109% of a core; 1,000: 1,433 file descriptors). Now at
// most 32 are open, the rest are refused with 503 and Retry-After, the
// server's file descriptors stay bounded, and every open stream hears of
// a new task.
func TestEventStreamsAreCapped(t *testing.T) {
	t.Parallel()
	r := echoWorld(t)
	cmd := r.Command(fixtures.Binary(t), "serve")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	u := strings.Replace(base, "/?token=", "/tasks/events?token=", 1)
	const clients = 300
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: clients, DisableKeepAlives: true}}
	var mu sync.Mutex
	codes := map[int]int{}
	var open []*bufio.Reader
	var bodies []func()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(u)
			if err != nil {
				mu.Lock()
				codes[-1]++
				mu.Unlock()
				return
			}
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK {
				open = append(open, bufio.NewReader(resp.Body))
				bodies = append(bodies, func() { resp.Body.Close() })
				return
			}
			if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				codes[-2]++
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range bodies {
			c()
		}
	}()
	t.Logf("%d clients: %v", clients, codes)
	if codes[http.StatusOK] == 0 || codes[http.StatusOK] > 32 || codes[http.StatusOK]+codes[http.StatusServiceUnavailable] != clients || codes[-2] > 0 {
		t.Errorf("status codes %v: want at most 32 streams, the rest 503 with Retry-After", codes)
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/fd")
	if err == nil && len(fds) > 120 {
		t.Errorf("the server holds %d file descriptors with %d streams open", len(fds), codes[http.StatusOK])
	}
	// Each open stream has the list; a new task reaches all of them.
	for i, br := range open {
		if !readEvent(t, br, "tasks", "") {
			t.Fatalf("stream %d: no first event", i)
		}
	}
	r.MustGloss("task", "add", "a task made while streams listen", "-c", "heard")
	for i, br := range open {
		if !readEvent(t, br, "tasks", "a task made while streams listen") {
			t.Errorf("stream %d did not hear of the new task", i)
		}
	}
}

// readEvent reads server-sent events until one named event holds want,
// for at most 30 s.
func readEvent(t *testing.T, br *bufio.Reader, event, want string) bool {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		name := ""
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				found <- false
				return
			}
			l = strings.TrimRight(l, "\n")
			switch {
			case strings.HasPrefix(l, "event: "):
				name = strings.TrimPrefix(l, "event: ")
			case strings.HasPrefix(l, "data: ") && name == event && strings.Contains(l, want):
				found <- true
				return
			}
		}
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(30 * time.Second):
		return false
	}
}
