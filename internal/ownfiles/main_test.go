package ownfiles

import (
	"testing"

	"github.com/nightshift-dev/nightshift/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
