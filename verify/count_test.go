package verify

import (
	"strings"
	"testing"
)

// chinese returns a text of exactly n code points: Han characters with a
// "，" every 9 and a "。" and a newline closing each paragraph of 60.
func chinese(n int) string {
	han := []rune("夜班代理在无人值守时运行并把失败当作日常工作来处理")
	var b strings.Builder
	for i := range n {
		switch {
		case i%61 == 60:
			b.WriteRune('\n')
		case i%61 == 59:
			b.WriteRune('。')
		case i%10 == 9:
			b.WriteRune('，')
		default:
			b.WriteRune(han[i%len(han)])
		}
	}
	return b.String()
}

func TestChars(t *testing.T) {
	post := chinese(3341)
	if got := Chars(post); got != 3341 {
		t.Errorf("a Chinese post of 3341 characters counts %d", got)
	}
	if len(post) <= 3341 {
		t.Fatalf("test text is %d bytes; it should take more bytes than characters", len(post))
	}
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"whitespace counts", "a b\n", 4},
		{"an emoji is one code point", "ok 👍", 4},
		{"empty text is zero", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Chars(tt.in); got != tt.want {
				t.Errorf("Chars(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"words are whitespace-separated runs", "the quick  brown\tfox\n", 4},
		{"punctuation sticks to its word as in wc", "hello, world - ok", 4},
		{"each Han character is a word", "世界", 2},
		{"Latin beside Han splits at the script change", "hello世界", 3},
		{"Han before Latin splits too", "世界hello", 3},
		{"hiragana and katakana count per character", "ひらがなカタカナ", 8},
		{"hangul counts per syllable", "안녕 하세요", 5},
		{"CJK punctuation separates without counting", "你好，世界。", 4},
		{"the prolonged sound mark belongs to its kana", "ラーメン", 3},
		{"empty text is zero", "", 0},
		{"whitespace only is zero", " \n\t ", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Words(tt.in); got != tt.want {
				t.Errorf("Words(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}
