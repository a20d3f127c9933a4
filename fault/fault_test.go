package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gloss-dev/gloss/fault"
)

func TestKindSurvivesWrapping(t *testing.T) {
	base := fault.NotFoundf("task %q", "x")
	wrapped := fmt.Errorf("show task: %w", base)
	if fault.KindOf(wrapped) != fault.NotFound {
		t.Errorf("kind lost through wrapping")
	}
	if fault.KindOf(errors.New("plain")) != fault.Internal {
		t.Error("an unmarked error must be Internal")
	}
	if fault.As(fault.Check, nil) != nil {
		t.Error("As(nil) must be nil")
	}
	marked := fault.As(fault.Conflict, wrapped)
	if fault.KindOf(marked) != fault.Conflict || !errors.Is(marked, base) {
		t.Error("As must keep the chain and set the outer kind")
	}
}
