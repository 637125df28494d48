package matrix

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// keepRecords is how long the records of a request's message are kept:
// long past its close, so a late vote is still known as one, and a reply
// still finds the request it is about. A reply to an older message still
// steers its session (the place is the event's), as long as the life
// cycle remembers it.
const keepRecords = 7 * 24 * time.Hour

// pruner is what of the State (*pending.State) lets the front-end forget
// records; a State without it keeps them.
type pruner interface {
	Update(fn func(pending.KV) error) error
}

// prune forgets the records of requests posted before cutoff: the
// message's, its polls' and the votes on them. It returns how many
// requests it forgot.
func (f *Frontend) prune(cutoff time.Time) (int, error) {
	p, ok := f.st.(pruner)
	if !ok {
		return 0, nil
	}
	n := 0
	err := p.Update(func(kv pending.KV) error {
		n = 0
		var drop []string
		err := kv.ForEach(keyRequest, func(key string, value []byte) error {
			var rec requestRecord
			if json.Unmarshal(value, &rec) != nil || rec.At == 0 || rec.At >= cutoff.UnixMilli() {
				return nil // unreadable, or from before records had a time: kept
			}
			msg := strings.TrimPrefix(key, keyRequest)
			drop = append(drop, key, keyEvent+msg)
			for _, poll := range rec.Polls {
				drop = append(drop, keyEvent+poll.ID)
				if err := kv.ForEach(keyVote+poll.ID+"/", func(k string, _ []byte) error {
					drop = append(drop, k)
					return nil
				}); err != nil {
					return err
				}
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
			if err := kv.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("matrix: forget old records: %w", err)
	}
	return n, nil
}
