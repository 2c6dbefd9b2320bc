package exec

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
)

// slots caps the terminals one identity holds open.
type slots struct {
	mu  sync.Mutex
	n   map[string]int
	max int
}

func newSlots(max int) *slots { return &slots{n: map[string]int{}, max: max} }

func (s *slots) acquire(who string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[who] >= s.max {
		terminals := "terminals"
		if s.max == 1 {
			terminals = "terminal"
		}
		return nil, echo.NewHTTPError(http.StatusTooManyRequests,
			fmt.Sprintf("You already have %d %s open, the most one user may. Close one, then try again.", s.max, terminals))
	}
	s.n[who]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.n[who]--; s.n[who] <= 0 {
				delete(s.n, who)
			}
		})
	}, nil
}
