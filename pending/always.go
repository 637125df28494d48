package pending

import (
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// alwaysPrefix starts the meta key of an "always" answer given to a
// request that lets the agent change files (RememberAlways); the server
// quoted and the directory follow. The value is the permission's kind.
const alwaysPrefix = "always:"

func alwaysKey(server, dir string) []byte {
	return []byte(alwaysPrefix + strconv.Quote(server) + dir)
}

// RememberAlways records that a request of kind (edit,
// external_directory, …) in directory dir of server was answered
// "always". opencode keeps such answers where no one can list them, so
// AlwaysGiven is how the bridge knows its own rules were widened. dir must
// not be empty (ErrInvalid).
func (s *Store) RememberAlways(server, dir, kind string) error {
	if dir == "" {
		return fmt.Errorf("remember always for %s: %w: no directory", kind, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(alwaysKey(server, dir), []byte(kind+" "+s.now().UTC().Format(time.RFC3339)))
	})
	if err != nil {
		return fmt.Errorf("remember always for %s in %s: %w", kind, dir, err)
	}
	return nil
}

// AlwaysGiven returns what RememberAlways last recorded for directory dir
// of server ("edit 2026-01-02T15:04:05Z": the kind and when), and whether
// anything was.
func (s *Store) AlwaysGiven(server, dir string) (string, bool, error) {
	var v string
	var ok bool
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(alwaysKey(server, dir))
		v, ok = string(raw), raw != nil
		return nil
	}))
	if err != nil {
		return "", false, fmt.Errorf("look up always answers in %s: %w", dir, err)
	}
	return v, ok, nil
}
