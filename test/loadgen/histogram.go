package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/internal/webhook"
)

// histogram is the webhook's request duration histogram, summed over its
// endpoints: cumulative counts by upper bound, +Inf included.
type histogram map[float64]float64

// scrape reads the duration histogram from the server's /metrics.
func scrape(client *http.Client, base string) (histogram, error) {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: HTTP %d", resp.StatusCode)
	}
	return parseHistogram(resp.Body, webhook.MetricDuration)
}

// parseHistogram sums the buckets of one histogram of the Prometheus text
// format over all its label sets.
func parseHistogram(r io.Reader, name string) (histogram, error) {
	h := histogram{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name+"_bucket{")
		if !ok {
			continue
		}
		_, afterLE, ok := strings.Cut(rest, `le="`)
		if !ok {
			return nil, fmt.Errorf("bucket without le: %s", line)
		}
		le, afterBound, _ := strings.Cut(afterLE, `"`)
		bound, err := strconv.ParseFloat(le, 64)
		if err != nil {
			return nil, fmt.Errorf("bucket bound %q: %w", le, err)
		}
		_, value, _ := strings.Cut(afterBound, "} ")
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("bucket count in %q: %w", line, err)
		}
		h[bound] += n
	}
	return h, sc.Err()
}

// minus returns the observations made between earlier and h.
func (h histogram) minus(earlier histogram) histogram {
	out := histogram{}
	for b, n := range h {
		out[b] = n - earlier[b]
	}
	return out
}

// count is the number of observations.
func (h histogram) count() float64 { return h[math.Inf(1)] }

// quantile estimates the q-quantile as Prometheus' histogram_quantile
// does, by linear interpolation within the bucket it falls in; bound is
// that bucket's upper bound, the figure the histogram guarantees.
func (h histogram) quantile(q float64) (estimate, bound time.Duration) {
	bounds := make([]float64, 0, len(h))
	for b := range h {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	total := h.count()
	if total == 0 {
		return 0, 0
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for _, b := range bounds {
		if h[b] >= rank {
			if math.IsInf(b, 1) {
				return seconds(lower), seconds(b)
			}
			within := h[b] - below
			frac := 1.0
			if within > 0 {
				frac = (rank - below) / within
			}
			return seconds(lower + (b-lower)*frac), seconds(b)
		}
		lower, below = b, h[b]
	}
	return seconds(lower), seconds(lower)
}

func seconds(s float64) time.Duration {
	if math.IsInf(s, 1) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}
