package web

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Streams of the same source share one feed: 100 listeners, one poller;
// each gets every change's latest state; the feed stops with its last
// listener.
func TestStreamsShareOneFeed(t *testing.T) {
	var h streams
	var polls atomic.Int64
	var version atomic.Int64
	poll := func(context.Context) ([]byte, error) {
		polls.Add(1)
		return fmt.Appendf(nil, "v%d", version.Load()), nil
	}
	const n = 100
	var stops []func()
	var chans []<-chan []byte
	for range n {
		ch, stop := h.subscribe("k", poll)
		chans, stops = append(chans, ch), append(stops, stop)
	}
	h.mu.Lock()
	feeds := len(h.feeds)
	h.mu.Unlock()
	if feeds != 1 {
		t.Fatalf("%d feeds for one source", feeds)
	}
	for want := range 3 {
		version.Store(int64(want))
		var wg sync.WaitGroup
		for i, ch := range chans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				deadline := time.After(10 * time.Second)
				for {
					select {
					case got := <-ch:
						if string(got) == fmt.Sprintf("v%d", want) {
							return
						}
					case <-deadline:
						t.Errorf("listener %d never saw v%d", i, want)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	// Each poll served all 100 listeners: far fewer polls than listeners
	// times changes.
	if p := polls.Load(); p >= n {
		t.Errorf("%d polls for %d listeners: they do not share the feed", p, n)
	}
	for _, stop := range stops {
		stop()
	}
	h.mu.Lock()
	feeds = len(h.feeds)
	h.mu.Unlock()
	if feeds != 0 {
		t.Errorf("%d feeds left after the last listener went", feeds)
	}
}

func TestStreamsAreCapped(t *testing.T) {
	var h streams
	for i := range maxStreams {
		if !h.acquire() {
			t.Fatalf("stream %d refused below the cap", i+1)
		}
	}
	if h.acquire() {
		t.Fatalf("stream %d accepted over the cap", maxStreams+1)
	}
	h.release()
	if !h.acquire() {
		t.Fatal("a freed place was not reused")
	}
}
