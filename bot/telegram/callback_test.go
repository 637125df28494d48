package telegram

import (
	"errors"
	"strings"
	"testing"
)

func TestCallbackRoundTrip(t *testing.T) {
	for _, c := range []callbackData{
		{Action: actOption, UID: "aB3dE6gH", Question: 0, Option: 0},
		{Action: actOption, UID: "x", Question: 999, Option: 999},
		{Action: actToggle, UID: "Zz09", Question: 2, Option: 17},
		{Action: actCustom, UID: "aB3dE6gH", Question: 3},
		{Action: actSubmit, UID: strings.Repeat("a", maxUIDLen), Question: 999},
		{Action: actAllowOnce, UID: "aB3dE6gH"},
		{Action: actAllowAlways, UID: strings.Repeat("Z", maxUIDLen)},
		{Action: actReject, UID: "x"},
		{Action: actRejectReason, UID: "aB3dE6gH"},
		{Action: actResume, UID: "0123456789ab"},
	} {
		s, err := c.encode()
		if err != nil {
			t.Fatalf("encode %+v: %v", c, err)
		}
		if len(s) > maxCallbackData {
			t.Errorf("%q is %d bytes", s, len(s))
		}
		got, err := decodeCallback(s)
		if err != nil {
			t.Fatalf("decode %q: %v", s, err)
		}
		if got != c {
			t.Errorf("decode(encode(%+v)) = %+v", c, got)
		}
	}
	if s, _ := (callbackData{Action: actOption, UID: "aB3dE6gH", Question: 1, Option: 2}).encode(); s != "qopt:aB3dE6gH:1:2" {
		t.Errorf("encode = %q", s)
	}
	if s, _ := (callbackData{Action: actCustom, UID: "aB3dE6gH", Question: 1, Option: 2}).encode(); s != "qcustom:aB3dE6gH:1" {
		t.Errorf("encode = %q, want the option left out", s)
	}
	if s, _ := (callbackData{Action: actRejectReason, UID: "aB3dE6gH", Question: 1}).encode(); s != "preason:aB3dE6gH" {
		t.Errorf("encode = %q, want no indexes", s)
	}
	if s, _ := (callbackData{Action: actResume, UID: "0123456789ab", Question: 1}).encode(); s != "aresume:0123456789ab" {
		t.Errorf("encode = %q, want no indexes", s)
	}
}

func TestCallbackEncodeRefuses(t *testing.T) {
	for _, c := range []callbackData{
		{Action: "qnope", UID: "abc"},
		{Action: actOption, UID: ""},
		{Action: actOption, UID: "a:b"},
		{Action: actOption, UID: strings.Repeat("a", maxUIDLen+1)},
		{Action: actOption, UID: "abc", Question: -1},
		{Action: actOption, UID: "abc", Question: 1000},
		{Action: actToggle, UID: "abc", Option: 1000},
		{Action: actAllowOnce, UID: ""},
		{Action: actReject, UID: "a:b"},
		{Action: actAllowAlways, UID: strings.Repeat("a", maxUIDLen+1)},
		{Action: actResume, UID: "aB3dE6gH"},
		{Action: actResume, UID: "0123456789AB"},
		{Action: actResume, UID: "0123456789a"},
		{Action: actResume, UID: "0123456789abc"},
	} {
		if s, err := c.encode(); err == nil {
			t.Errorf("encode %+v = %q, want an error", c, s)
		}
	}
}

func TestCallbackDecodeRefuses(t *testing.T) {
	for _, s := range []string{
		"",
		"qopt",
		"qopt:",
		"qopt:abc",
		"qopt:abc:0",
		"qopt:abc:0:1:2",
		"qopt::0:1",
		"qopt:ab-c:0:1",
		"qopt:abç:0:1",
		"qopt:abc:01:1",
		"qopt:abc:0:00",
		"qopt:abc:-1:1",
		"qopt:abc:+1:1",
		"qopt:abc: 1:1",
		"qopt:abc:1 :1",
		"qopt:abc:1000:1",
		"qopt:abc:٣:1",
		"qopt:abc:0x1:1",
		"qcustom:abc:0:1",
		"qcustom:abc",
		"qsub:abc:0:0",
		"qtog:abc:0",
		"QOPT:abc:0:1",
		"xopt:abc:0:1",
		"ans:1:y",
		"qopt:abc:0:1\n",
		"qopt:" + strings.Repeat("a", maxUIDLen+1) + ":0:1",
		"qcustom:" + strings.Repeat("a", 60),
		"ponce",
		"ponce:",
		"ponce:abc:0",
		"ponce:abc:",
		"ponce:ab-c",
		"PONCE:abc",
		"palways:abc\n",
		"preason:" + strings.Repeat("a", maxUIDLen+1),
		"pnope:abc",
		"preject:abç",
		"aresume",
		"aresume:",
		"aresume:0123456789a",
		"aresume:0123456789abc",
		"aresume:0123456789AB",
		"aresume:0123456789ag",
		"aresume:0123456789ab:0",
		"ARESUME:0123456789ab",
	} {
		if c, err := decodeCallback(s); err == nil {
			t.Errorf("decode %q = %+v, want an error", s, c)
		} else if !errors.Is(err, errBadCallback) {
			t.Errorf("decode %q: %v does not wrap errBadCallback", s, err)
		}
	}
}

// FuzzCallbackData checks that decode never panics, accepts only what
// encode would make, and that everything it accepts fits Telegram.
func FuzzCallbackData(f *testing.F) {
	for _, s := range []string{"qopt:aB3dE6gH:0:1", "qcustom:aB3dE6gH:2", "qtog:x:999:999", "qsub:Z:0", "qopt:a:01:1", "",
		"ponce:aB3dE6gH", "palways:x", "preject:Z9", "preason:aB3dE6gH", "ponce:a:0",
		"aresume:0123456789ab", "aresume:0123456789aB", "aresume:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCallback(s)
		if err != nil {
			return
		}
		if len(s) > maxCallbackData {
			t.Fatalf("accepted %d bytes", len(s))
		}
		again, err := c.encode()
		if err != nil {
			t.Fatalf("decoded %q to %+v, which does not encode: %v", s, c, err)
		}
		if again != s {
			t.Fatalf("decode is not strict: %q became %q", s, again)
		}
	})
}
