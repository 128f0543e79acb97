package fs

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize reads a size as a person writes it: a number of bytes
// ("1048576"), or one with a binary unit ("512KiB", "256MiB", "1GiB"; K, M
// and G, KB, MB and GB mean the same, powers of 1024). It must be
// positive.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToLower(strings.TrimSpace(t[len(num):]))
	mult := int64(1)
	switch unit {
	case "", "b":
	case "k", "kb", "kib":
		mult = 1 << 10
	case "m", "mb", "mib":
		mult = 1 << 20
	case "g", "gb", "gib":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("size %q: want a number of bytes, or one with KiB, MiB or GiB, such as 256MiB", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, or one with KiB, MiB or GiB, such as 256MiB", s)
	}
	return n * mult, nil
}

// FormatSize writes a size the way ParseSize reads it, in the largest
// binary unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}
