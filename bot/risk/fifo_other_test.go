//go:build !unix

package risk

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
