package telegram

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Updates handled concurrently pass the ordering in update order,
// whatever order their goroutines reach it in.
func TestUpdateOrderKeepsOrder(t *testing.T) {
	o := updateOrder{bound: time.Hour}
	o.through(10)
	ctx := context.Background()
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	for _, id := range []int64{14, 12, 13, 11} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.wait(ctx, id)
			mu.Lock()
			got = append(got, id)
			mu.Unlock()
			o.through(id)
		}()
	}
	wg.Wait()
	if want := []int64{11, 12, 13, 14}; !slices.Equal(got, want) {
		t.Errorf("passed in order %v, want %v", got, want)
	}
}

// An update Telegram skipped holds the next one only until the bound.
func TestUpdateOrderSkipsAGap(t *testing.T) {
	o := updateOrder{bound: time.Millisecond}
	o.through(10)
	o.wait(context.Background(), 13) // 11 and 12 never come
	o.through(13)
	if o.floor != 14 {
		t.Errorf("floor = %d after the gap, want 14", o.floor)
	}

}
