package fs

import "testing"

func TestSizesReadAsAPersonWritesThem(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "256MiB": 256 << 20, "256M": 256 << 20, "1GiB": 1 << 30, "512 KiB": 512 << 10, "3gb": 3 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "12 parsecs", "1.5GiB", "MiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
		}
	}
	if got := FormatSize(DefaultMaxFileSize); got != "256MiB" {
		t.Errorf("FormatSize(default) = %q", got)
	}
}
