package livebench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
	"github.com/marquee-tickets/marquee/cmd/bench/wsclient"
)

// The fan-out is measured against a real app instance in a child process
// (appserver.StartChild). The websocket clients and the stream of changes
// run in this process.

// fanout is one fan-out (or, with one subscriber, the quiet latency) run.
type fanout struct {
	n              int
	a              announce.Way
	connect        time.Duration // to dial every client and receive its seat map
	base, after    appserver.Stats
	client0        uint64 // this process's heap + stacks before dialing
	client1        uint64 // and after
	lat            stream.Latencies
	msgs, bytes    int64
	dropped        int   // clients the server closed (slow) or that failed
	firstDrop      error // why the first one ended
	streamed       time.Duration
	cpu            cpu.Use // bench = the clients and the stream; other excludes the server
	server         float64
	made, failures int
	tries          int
}

// runFanouts runs (b) and (c): one fresh server process per subscriber count.
func (lb *liveBench) runFanouts(ctx context.Context) ([]*fanout, error) {
	ways := announce.Ways(lb.lc.Listeners)
	type run struct {
		n int
		a announce.Way
	}
	var runs []run
	for _, n := range lb.lc.Subscribers {
		runs = append(runs, run{n, ways[1]})
		if n == 1 {
			// The same with the naive pg_notify: what the batching adds.
			runs = append(runs, run{n, ways[2]})
		}
	}
	var out []*fanout
	for _, r := range runs {
		n := r.n
		var f *fanout
		for try := 0; ; try++ {
			var err error
			if f, err = lb.runFanout(ctx, r.a, n, try); err != nil {
				return nil, err
			}
			f.tries = try + 1
			lb.Status("fan-out %5d subscribers (%s): connect %s, latency p50/p99/max %s ms, slowest subscriber p50/p99 %s/%s ms, missed %d, dropped %d, server %.1f KiB heap+stack/subscriber, cpu %s, server %.2f",
				n, r.a.Key, f.connect.Round(time.Millisecond), f.lat.Summary(), stats.Ms(stats.Percentile(f.lat.Slowest, 50)), stats.Ms(stats.Percentile(f.lat.Slowest, 99)),
				f.lat.Missed, f.dropped, f.serverPerSub(), f.cpu, f.server)
			if !lb.Disturbed(f.cpu) || try == lb.Cfg.Reruns {
				break
			}
			lb.Status("  disturbed: other work used %.2f cores; running it again", f.cpu.Other)
		}
		out = append(out, f)
	}
	return out, nil
}

func (f *fanout) serverPerSub() float64 {
	d := int64(f.after.HeapInuse+f.after.StackInuse) - int64(f.base.HeapInuse+f.base.StackInuse)
	return float64(d) / float64(f.n) / 1024
}

func (lb *liveBench) runFanout(ctx context.Context, a announce.Way, n, try int) (*fanout, error) {
	if err := lb.prepare(ctx, a); err != nil {
		return nil, err
	}
	show, err := lb.World.Venue.NewShow(ctx, lb.Store, fmt.Sprintf("Fan-out %d %s %d", n, a.Key, try), seed.Grid(liveRows, seed.ShowCols))
	if err != nil {
		return nil, err
	}
	st, err := stream.New(lb.Store, show, liveRows, seed.ShowCols, lb.slotUsers, lb.lc.Rate, lb.lc.Stream)
	if err != nil {
		return nil, err
	}
	receivers := make([]*stream.Receiver, n)
	for i := range receivers {
		receivers[i] = st.NewReceiver()
	}

	lb.Status("fan-out: starting a server process for %d subscribers, announcements %s", n, a.Key)
	srv, err := appserver.StartChild(ctx, lb.dbURL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			lb.Status("fan-out: %v", err)
		}
	}()
	if err := announce.WaitListening(ctx, lb.Pool, 1); err != nil {
		return nil, err
	}
	f := &fanout{n: n, a: a}
	if f.base, err = srv.Stats(ctx, show, false); err != nil {
		return nil, err
	}
	f.client0 = heapAndStacks()

	hc := &http.Client{Transport: &http.Transport{
		DialContext:       (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		DisableKeepAlives: true,
	}}
	clients := make([]*wsclient.Client, n)
	var readers sync.WaitGroup
	closeAll := func() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 256)
		for _, c := range clients {
			if c == nil {
				continue
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				c.Close()
			})
		}
		wg.Wait()
		readers.Wait()
	}
	t0 := time.Now()
	var dialErr error
	var mu sync.Mutex
	sem := make(chan struct{}, dialParallel)
	var dials sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := wsclient.Dial(ctx, srv.Base, hc, show, receivers[i], &readers)
			if err != nil {
				mu.Lock()
				if dialErr == nil {
					dialErr = fmt.Errorf("websocket client %d: %w", i, err)
				}
				mu.Unlock()
				return
			}
			clients[i] = c
			<-c.First()
		})
	}
	dials.Wait()
	if dialErr != nil {
		closeAll()
		return nil, dialErr
	}
	f.connect = time.Since(t0)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := srv.Stats(ctx, show, false)
		if err != nil {
			closeAll()
			return nil, err
		}
		if s.Subscribers == n {
			break
		}
		if time.Now().After(deadline) {
			closeAll()
			return nil, fmt.Errorf("fan-out: %d of %d subscribers after 30 s", s.Subscribers, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if f.after, err = srv.Stats(ctx, show, true); err != nil {
		closeAll()
		return nil, err
	}
	f.client1 = heapAndStacks()

	lb.Status("fan-out: %d subscribers connected in %s; streaming %.0f changes/s for %s", n, f.connect.Round(time.Millisecond), lb.lc.Rate, lb.lc.Stream)
	cpu0, srv0 := lb.CPUSample(ctx), childCPU(srv)
	began := time.Now()
	st.Run(ctx, lb.lc.Stream)
	f.streamed = time.Since(began)
	f.cpu = lb.CPUSample(ctx).Since(cpu0, f.streamed)
	f.server = (childCPU(srv) - srv0).Seconds() / f.streamed.Seconds()
	if f.cpu.Other >= 0 {
		f.cpu.Other = max(0, f.cpu.Other-f.server)
	}
	time.Sleep(fanoutGrace)
	closeAll()
	if err := st.ReleaseAll(ctx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.made, f.failures, _ = st.Made()
	if _, failed, first := st.Made(); failed > 0 {
		lb.Status("  stream: %d changes failed, first: %v", failed, first)
	}
	f.lat = st.Collect(receivers, func(i int) bool { return clients[i].Dropped() })
	for _, c := range clients {
		f.msgs += int64(c.Receiver().Msgs)
		f.bytes += c.Bytes()
		if c.Dropped() {
			f.dropped++
			if f.firstDrop == nil {
				f.firstDrop = c.Err()
			}
		}
	}
	return f, nil
}

// childCPU is the user and system time the child server has used.
func childCPU(s *appserver.Child) time.Duration {
	t, _ := cpu.Host().PID(s.PID())
	return t
}
