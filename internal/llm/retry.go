package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how [Retry] retries failed requests.
//
// MaxRetries is the number of retries after the first attempt (0: none).
// Base is the first backoff delay (default 1 s) and Max the cap of one delay
// (default 30 s); delay n is Base·2ⁿ with jitter in [½, 1]. A provider's
// retry-after wins when longer; one longer than MaxWait (default 2 min) is
// not waited for. Sleep and Jitter are for tests (defaults: a timer that
// honours ctx; math/rand/v2). OnRetry, when set, is told of each retry before
// the wait (for progress output).
type RetryPolicy struct {
	MaxRetries int
	Base       time.Duration
	Max        time.Duration
	MaxWait    time.Duration
	Sleep      func(ctx context.Context, d time.Duration) error
	Jitter     func() float64
	OnRetry    func(attempt int, err error, wait time.Duration)
}

// Retry wraps p so that retryable failures ([APIError.Retryable]: 429,
// 500-504, 529/overloaded, network errors, timeouts) are retried with
// exponential backoff and jitter, honouring retry-after. A request is never
// retried once any text, reasoning or tool call has been delivered to the
// handler (a retry would repeat it), and never on 400/401/403/404.
func Retry(p Client, pol RetryPolicy) Client {
	if pol.Base <= 0 {
		pol.Base = time.Second
	}
	if pol.Max <= 0 {
		pol.Max = 30 * time.Second
	}
	if pol.MaxWait <= 0 {
		pol.MaxWait = 2 * time.Minute
	}
	if pol.Sleep == nil {
		pol.Sleep = sleepCtx
	}
	if pol.Jitter == nil {
		pol.Jitter = rand.Float64
	}
	return ClientFunc(func(ctx context.Context, req *Request, h Handler) (*Response, error) {
		for attempt := 0; ; attempt++ {
			delivered := false
			track := func(e Event) {
				if e.Type == EventText || e.Type == EventReasoning || e.Type == EventToolCall {
					delivered = true
				}
				if h != nil {
					h(e)
				}
			}
			resp, err := p.Generate(ctx, req, track)
			if err == nil || delivered || attempt >= pol.MaxRetries || ctx.Err() != nil {
				return resp, err
			}
			wait, ok := pol.delay(attempt, err)
			if !ok {
				return resp, err
			}
			if pol.OnRetry != nil {
				pol.OnRetry(attempt+1, err, wait)
			}
			if serr := pol.Sleep(ctx, wait); serr != nil {
				return resp, err
			}
		}
	})
}

// delay returns how long to wait before retry number attempt+1, and whether
// err may be retried at all.
func (pol RetryPolicy) delay(attempt int, err error) (time.Duration, bool) {
	var ae *APIError
	if !errors.As(err, &ae) || !ae.Retryable() {
		return 0, false
	}
	d := pol.Base << min(attempt, 20)
	if d > pol.Max || d <= 0 {
		d = pol.Max
	}
	d = time.Duration(float64(d) * (0.5 + pol.Jitter()/2))
	if ae.RetryAfter > pol.MaxWait {
		return 0, false
	}
	if ae.RetryAfter > d {
		d = ae.RetryAfter
	}
	return d, true
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
