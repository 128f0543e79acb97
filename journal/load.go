package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/statedir"
)

// stored is a journal read back from disk, as recovery sees it, with
// whatever is wrong with it.
type stored struct {
	run    string
	dir    string // the run's journal folder
	blobs  string // the folder of its packs
	legacy bool
	m      *model
	// damage says what is missing or cut short. A damaged journal is
	// applied as far as it goes, and kept.
	damage []string
}

func (s *stored) damaged(format string, args ...any) {
	s.damage = append(s.damage, fmt.Sprintf("journal of run %s: ", s.run)+fmt.Sprintf(format, args...))
}

// load reads the journal in the folder dir.
func load(dir string, legacy bool) *stored {
	if legacy {
		return loadLegacy(dir)
	}
	s := &stored{run: filepath.Base(dir), dir: dir, blobs: filepath.Join(dir, stepsName), m: newModel()}
	if b, err := statedir.ReadFile(filepath.Join(dir, beginName)); err != nil {
		s.damaged("%s is missing or unreadable (%v)", beginName, err)
	} else {
		var r record
		if err := json.Unmarshal(b, &r); err != nil || r.Op != opBegin {
			s.damaged("%s is damaged", beginName)
		} else {
			s.m.apply(r)
		}
	}
	afters := s.readAfters()
	entries, err := readRealDir(s.blobs)
	if err != nil {
		s.damaged("its folder of steps is missing (%v): the changes recorded there cannot be undone", err)
	}
	steps, packs := map[int]bool{}, map[int]bool{}
	last := 0
	for _, e := range entries {
		n, pack, ok := stepNumber(e.Name())
		if !ok {
			continue
		}
		if pack {
			packs[n] = true
			continue
		}
		steps[n] = true
		last = max(last, n)
	}
	for n := 1; n < last; n++ {
		if !steps[n] {
			s.damaged("step %d is missing", n)
		}
	}
	for n := range packs {
		// The pack of the step after the last one belongs to a step that
		// died before its record was written: its change never happened.
		if !steps[n] && n != last+1 {
			s.damaged("the saved contents of step %d have no record", n)
		}
	}
	ai := 0
	applyAfters := func(upTo int) {
		for ai < len(afters) && afters[ai].Step <= upTo {
			s.m.apply(afters[ai])
			ai++
		}
	}
	for n := 1; n <= last; n++ {
		if steps[n] {
			s.readStep(n)
		}
		applyAfters(n)
	}
	applyAfters(int(^uint(0) >> 1))
	for _, r := range afters {
		if _, ok := s.m.prior[r.Path]; !ok && r.Op == opAfter {
			s.damaged("it holds what the run left %s, but no record of its state before: step records are missing", r.Path)
			break
		}
	}
	return s
}

// readStep applies the records of step n.
func (s *stored) readStep(n int) {
	data, err := statedir.ReadFile(filepath.Join(s.blobs, stepFile(n)))
	if err != nil {
		s.damaged("step %d is unreadable: %v", n, err)
		return
	}
	if len(data) == 0 {
		s.damaged("step %d is empty", n)
		return
	}
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r record
		// A step file is written whole and renamed into place: a line
		// cut short cannot come from a crash.
		if l[len(l)-1] != '\n' || json.Unmarshal(l, &r) != nil {
			s.damaged("step %d, line %d is cut short or damaged", n, i+1)
			return
		}
		s.m.apply(r)
	}
}

// readAfters reads after.jsonl, sorted by the step each record follows.
// It is appended without syncing, so a crash may cut its last line: that
// line is ignored, and the path counts as the run's change.
func (s *stored) readAfters() []record {
	data, err := statedir.ReadFile(filepath.Join(s.dir, afterName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.damaged("%s is unreadable: %v", afterName, err)
		return nil
	}
	var out []record
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r record
		if json.Unmarshal(l, &r) != nil || (r.Op != opAfter && r.Op != opChanging) {
			if i == len(lines)-1 && l[len(l)-1] != '\n' {
				break
			}
			s.damaged("%s, line %d is damaged", afterName, i+1)
			continue
		}
		r.unpackNames()
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b record) int { return a.Step - b.Step })
	return out
}

// loadLegacy reads a journal in the format of earlier versions: one log,
// appended and synced step by step, and a folder of packs.
func loadLegacy(dir string) *stored {
	s := &stored{run: filepath.Base(dir), dir: dir, blobs: filepath.Join(dir, blobsName), legacy: true, m: newModel()}
	packs := 0
	if entries, err := readRealDir(s.blobs); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "pack-") && !strings.HasSuffix(e.Name(), ".tmp") {
				packs++
			}
		}
	}
	data, err := statedir.ReadFile(filepath.Join(dir, logName))
	if errors.Is(err, fs.ErrNotExist) {
		if packs > 0 {
			s.damaged("%s is missing, but %d packs of saved contents are there", logName, packs)
		}
		return s
	}
	if err != nil {
		s.damaged("%s is unreadable: %v", logName, err)
		return s
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	begun := false
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r record
		if json.Unmarshal(l, &r) != nil {
			// Earlier versions appended after records unsynced, so a
			// crash could cut one short; any other line cut short may
			// have been a change that happened.
			if i == len(lines)-1 && l[len(l)-1] != '\n' && bytes.HasPrefix(l, []byte(`{"op":"after"`)) {
				break
			}
			s.damaged("%s, line %d is cut short or damaged", logName, i+1)
			continue
		}
		begun = begun || r.Op == opBegin
		s.m.apply(r)
	}
	if !begun && (packs > 0 || len(s.m.prior) > 0 || len(bytes.TrimSpace(data)) > 0) {
		s.damaged("%s has no begin record", logName)
	}
	return s
}

// readRealDir lists a folder of a journal that must be a real folder: a
// symlink in its place (planted in an old .nightshift/) is not followed.
func readRealDir(dir string) ([]os.DirEntry, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	return os.ReadDir(dir)
}
