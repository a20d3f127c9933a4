package web

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// maxStreams bounds the server-sent event streams one server keeps open
// (the board and task logs together). A browser opens one per page, over
// HTTP/1.1 at most six per host; each stream holds a connection, so
// without a bound 1,000 streams held 1,433 file descriptors. One more is
// refused with 503 and Retry-After.
const maxStreams = 32

// streams counts and feeds the open event streams. Streams that ask for
// the same thing share one feed: one poller, whatever the number of
// streams (500 board streams, each polling on its own, took 109% of a
// core).
type streams struct {
	mu    sync.Mutex
	open  int
	feeds map[string]*feed
}

// feed polls one source every pollEvery for as long as someone listens,
// and hands each change to every listener.
type feed struct {
	poll   func(context.Context) ([]byte, error)
	subs   map[chan []byte]struct{}
	last   []byte
	cancel context.CancelFunc
}

// acquire takes one of the maxStreams places; false when none is free.
func (h *streams) acquire() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open >= maxStreams {
		return false
	}
	h.open++
	return true
}

func (h *streams) release() {
	h.mu.Lock()
	h.open--
	h.mu.Unlock()
}

// subscribe listens to the feed of key (started with poll if it is not
// running): the channel gets the latest data at once when there is some,
// then each change. A slow listener misses intermediate states, never the
// latest. stop ends the subscription; the feed stops with its last one.
func (h *streams) subscribe(key string, poll func(context.Context) ([]byte, error)) (updates <-chan []byte, stop func()) {
	ch := make(chan []byte, 1)
	h.mu.Lock()
	if h.feeds == nil {
		h.feeds = map[string]*feed{}
	}
	f := h.feeds[key]
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &feed{poll: poll, subs: map[chan []byte]struct{}{}, cancel: cancel}
		h.feeds[key] = f
		go h.run(ctx, f)
	}
	f.subs[ch] = struct{}{}
	if f.last != nil {
		ch <- f.last
	}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(f.subs, ch)
		if len(f.subs) == 0 && h.feeds[key] == f {
			delete(h.feeds, key)
			f.cancel()
		}
	}
}

// run polls f until its context ends, handing each change to its
// listeners.
func (h *streams) run(ctx context.Context, f *feed) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if data, err := f.poll(ctx); err == nil {
			h.mu.Lock()
			if !bytes.Equal(data, f.last) {
				f.last = data
				for ch := range f.subs {
					select { // keep only the latest
					case <-ch:
					default:
					}
					ch <- data
				}
			}
			h.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
