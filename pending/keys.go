package pending

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"time"
)

const (
	// uidLen characters of 62 give 62^8 ≈ 2·10^14 UIDs: collisions are
	// rare enough that a retry or two settles them, and the UID stays short
	// in 64-byte callback data.
	uidLen      = 8
	uidAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	uidAttempts = 10
)

// UIDFor returns the UID of the entry for request requestID of the
// opencode server named server: uidLen characters of uidAlphabet drawn
// from a SHA-256 of both, the same in every process. A message posted
// for the request by a process that died before storing it carries the
// UID the restart stores, so its buttons still answer. Two requests
// sharing one is as rare as for NewUID; Create refuses the second with
// ErrExists, so check with Get first and fall back to NewUID.
func UIDFor(server, requestID string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + requestID))
	// 62^8 is below 2^48, so the modulo's bias over 64 bits is nil in
	// practice.
	n := binary.BigEndian.Uint64(sum[:8])
	out := make([]byte, uidLen)
	for i := range out {
		out[i] = uidAlphabet[n%uint64(len(uidAlphabet))]
		n /= uint64(len(uidAlphabet))
	}
	return string(out)
}

// requestKey is the key of request requestID of server in the indexes
// that find a request by opencode's ID. The unnamed server's is the ID
// alone. A named server's holds its name and a NUL, which no server
// name holds; and a deployment has either one unnamed server or only
// named ones, so no two servers' keys can meet.
func requestKey(server, requestID string) []byte {
	if server == "" {
		return []byte(requestID)
	}
	return []byte(server + "\x00" + requestID)
}

// NewUID returns a fresh UID, for a caller that must name an entry (in
// the buttons of its message) before it stores it with Create. Create
// refuses it with ErrExists in the unlikely case that it is taken. It
// draws uidLen characters uniformly from uidAlphabet; bytes at or above
// the largest multiple of 62 are dropped so no character is favoured.
func NewUID() string {
	const limit = 256 - 256%len(uidAlphabet)
	out := make([]byte, 0, uidLen)
	var buf [2 * uidLen]byte
	for len(out) < uidLen {
		_, _ = rand.Read(buf[:]) // never fails; it panics rather than return short
		for _, b := range buf {
			if int(b) < limit && len(out) < uidLen {
				out = append(out, uidAlphabet[int(b)%len(uidAlphabet)])
			}
		}
	}
	return string(out)
}

func validUID(uid string) bool {
	foreign := func(r rune) bool { return !strings.ContainsRune(uidAlphabet, r) }
	return uid != "" && len(uid) <= 64 && !strings.ContainsFunc(uid, foreign)
}

// placeKey is prefix, then the place of front-end frontend: the meta key
// of what the store keeps about a message (its owed edit, its session).
func placeKey(prefix, frontend string, at Place) []byte {
	return []byte(prefix + frontend + "\x00" + string(at))
}

// nameKey is the key of uid under name in byDirectory, bySession or
// bySharedWith.
func nameKey(name, uid string) []byte {
	return []byte(name + "\x00" + uid)
}

// sessionKeys are e's keys in bySession. An entry is indexed under its
// SessionID even when that is empty, so BySession("") finds what a scan
// for SessionID == "" would; an empty ParentSessionID names no parent.
func sessionKeys(e *Entry) [][]byte {
	keys := [][]byte{nameKey(e.SessionID, e.UID)}
	if e.ParentSessionID != "" && e.ParentSessionID != e.SessionID {
		keys = append(keys, nameKey(e.ParentSessionID, e.UID))
	}
	return keys
}

// nulDirectoryKey, in meta, is there once an entry's directory held a
// NUL. Its keys can then sit among another directory's, and Directories
// reads every key of the index instead of skipping each directory's with
// one Seek. It is not removed with the entry; a rebuild of the indexes
// clears it.
var nulDirectoryKey = []byte("nulDirectory")

// splitNameKey returns the name (directory, session or shared UID) and the
// UID of a nameKey. It splits at the last NUL, since a UID has none and a
// name could.
func splitNameKey(k []byte) (name, uid []byte, ok bool) {
	i := bytes.LastIndexByte(k, 0)
	if i < 0 {
		return nil, nil, false
	}
	return k[:i], k[i+1:], true
}

const stampLen = 8

var (
	minStampTime = time.Unix(0, math.MinInt64)
	maxStampTime = time.Unix(0, math.MaxInt64)
)

// expiryStamp orders byExpiry keys by time: t's Unix nanoseconds,
// big-endian, with the sign bit flipped so times before 1970 sort first.
// Times UnixNano cannot express are clamped; Expired checks the decoded
// ExpiresAt again, so clamping never changes what it returns.
func expiryStamp(t time.Time) [stampLen]byte {
	var n int64
	switch {
	case t.Before(minStampTime):
		n = math.MinInt64
	case t.After(maxStampTime):
		n = math.MaxInt64
	default:
		n = t.UnixNano()
	}
	var out [stampLen]byte
	binary.BigEndian.PutUint64(out[:], uint64(n)^(1<<63))
	return out
}

func expiryKey(t time.Time, uid string) []byte {
	stamp := expiryStamp(t)
	return append(stamp[:], uid...)
}
