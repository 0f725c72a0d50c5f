package dist

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Run states in the control bucket.
const (
	stateRunning = "running"
	statePaused  = "paused"
	stateStopped = "stopped"
)

// controlReader follows the run state in the control bucket (a KV watch);
// until the bucket exists the state is stopped (workers wait).
type controlReader struct {
	mu sync.Mutex
	st string
}

func newControlReader(ctx context.Context, js jetstream.JetStream) *controlReader {
	c := &controlReader{st: stateStopped}
	go c.follow(ctx, js)
	return c
}

func (c *controlReader) state() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

func (c *controlReader) set(s string) {
	c.mu.Lock()
	c.st = s
	c.mu.Unlock()
}

func (c *controlReader) follow(ctx context.Context, js jetstream.JetStream) {
	for ctx.Err() == nil {
		kv, err := js.KeyValue(ctx, ControlBucket)
		if err != nil {
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		watch, err := kv.Watch(ctx, controlKey)
		if err != nil {
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		c.read(ctx, watch)
		_ = watch.Stop()
	}
}

func (c *controlReader) read(ctx context.Context, watch jetstream.KeyWatcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-watch.Updates():
			if !ok {
				return
			}
			if e == nil { // the initial values were delivered
				continue
			}
			switch v := string(e.Value()); v {
			case stateRunning, statePaused, stateStopped:
				c.set(v)
			default:
				c.set(stateStopped) // an unknown value: do not take work
			}
		}
	}
}

// controlBucket creates (or opens) the control bucket.
func controlBucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: ControlBucket, History: 1, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("ralph: control bucket: %w", err)
	}
	return kv, nil
}

func setState(ctx context.Context, kv jetstream.KeyValue, st string) error {
	if _, err := kv.PutString(ctx, controlKey, st); err != nil {
		return fmt.Errorf("ralph: set run state %s: %w", st, err)
	}
	return nil
}
