package journal

import (
	"io/fs"
	"syscall"
	"time"
)

// racyWindow is how recent a file's last change (its ctime) may be for
// its hash to be remembered by its stat. File times come from a coarse
// clock (a few milliseconds, seconds on some file systems): a file
// changed twice within one tick keeps its times, so a stat taken in that
// tick proves nothing. Past the window, any change moves the ctime, which
// no program can set back.
const racyWindow = 3 * time.Second

// statCache remembers, for a live journal, each file's state with the
// stat it was read under: a later look at a file whose device, inode,
// size, mode, link count, mtime and ctime are all the same takes the
// state from here instead of reading the file again. So a command in a
// workspace of 50,000 files costs 50,000 stats, not 50,000 reads, before
// and after it. A nil statCache remembers nothing (recover, which starts
// cold, reads every file).
type statCache struct {
	m   map[string]cacheEntry
	now func() time.Time
	// reads counts the files read (not taken from here), for tests.
	reads int
}

type statKey struct {
	dev, ino, nlink uint64
	size            int64
	mode            uint32
	mtime, ctime    int64
}

type cacheEntry struct {
	key statKey
	st  state
}

func newStatCache() *statCache { return &statCache{m: map[string]cacheEntry{}, now: time.Now} }

func keyOf(fi fs.FileInfo) (statKey, int64, bool) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, 0, false
	}
	ctime := s.Ctim.Nano()
	return statKey{
		dev: uint64(s.Dev), ino: s.Ino, nlink: uint64(s.Nlink), size: s.Size, mode: s.Mode,
		mtime: s.Mtim.Nano(), ctime: ctime,
	}, ctime, true
}

// get returns the state remembered for rel, if the file is still the one
// it was read from.
func (c *statCache) get(rel string, fi fs.FileInfo) (state, bool) {
	if c == nil {
		return state{}, false
	}
	e, ok := c.m[rel]
	if !ok {
		return state{}, false
	}
	k, _, ok := keyOf(fi)
	if !ok || k != e.key {
		return state{}, false
	}
	return e.st, true
}

// put remembers st for rel, read from the file fi describes, unless the
// file changed too recently to be told apart by its stat.
func (c *statCache) put(rel string, fi fs.FileInfo, st state) {
	if c == nil {
		return
	}
	k, ctime, ok := keyOf(fi)
	if !ok || ctime >= c.now().Add(-racyWindow).UnixNano() {
		delete(c.m, rel)
		return
	}
	st.Pack, st.Off = "", 0 // where it is saved is the journal's business
	c.m[rel] = cacheEntry{key: k, st: st}
}

// forget drops what is remembered of rel.
func (c *statCache) forget(rel string) {
	if c != nil {
		delete(c.m, rel)
	}
}
