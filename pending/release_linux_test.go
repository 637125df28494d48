//go:build linux

package pending_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

// mappedKiB is how much of path is resident in this process's memory
// maps, from /proc/self/smaps.
func mappedKiB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("smaps Rss %q: %v", fields[1], err)
			}
			total += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

func TestReleaseMappedDropsResidentPages(t *testing.T) {
	s := mustOpenStore(t)
	// Written side by side, so group commit keeps the fsyncs few.
	var wg sync.WaitGroup
	for w := range 20 {
		wg.Go(func() {
			for i := w; i < 2000; i += 20 {
				if err := s.Create(&pending.Entry{
					Kind: pending.KindQuestion, Directory: fmt.Sprintf("/p/%d", i%7), SessionID: fmt.Sprintf("ses_%d", i%50),
					RequestID: fmt.Sprintf("que_%05d", i), Places: shown(fmt.Sprint(-100, ":", i+1)),
					Questions: []pending.Question{{Text: strings.Repeat("Which one? ", 20), Options: []pending.Option{{Label: "A"}, {Label: "B"}}}},
				}); err != nil {
					t.Errorf("create %d: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	all, err := s.List()
	if err != nil || len(all) != 2000 {
		t.Fatalf("List: %d entries, %v", len(all), err)
	}
	before := mappedKiB(t, s.Path())
	if before < 256 {
		t.Fatalf("only %d KiB of the store resident after reading every entry: the test reads the wrong mapping", before)
	}
	if err := s.ReleaseMapped(); err != nil {
		t.Fatalf("ReleaseMapped: %v", err)
	}
	if after := mappedKiB(t, s.Path()); after > 16 {
		t.Errorf("%d KiB of the store still resident after ReleaseMapped (%d before)", after, before)
	}
	// Nothing is lost: the pages come back from the page cache.
	e, err := s.ByRequestID("", "que_01234")
	if err != nil || e.Places["t"] != "-100:1235" {
		t.Fatalf("after ReleaseMapped: %+v, %v", e, err)
	}
	if all, err := s.List(); err != nil || len(all) != 2000 {
		t.Fatalf("after ReleaseMapped: List gives %d entries, %v", len(all), err)
	}
}

func TestReleaseMappedClosed(t *testing.T) {
	s := mustOpenStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseMapped(); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("ReleaseMapped on a closed store: %v, want ErrClosed", err)
	}
}
