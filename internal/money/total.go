package money

// Total is a sum of amounts as a report shows it: exact, or known to be
// past int64's range. A sum of rows recorded before the bounds (a payment
// of 9e18 minor units) can leave it; such a total is never wrapped or
// rounded into a wrong figure, it is marked Overflow and shown as "too
// large" instead.
type Total struct {
	Minor    int64
	Overflow bool // the sum is outside int64's range; Minor is 0
}

// Exact is the total of one amount.
func Exact(minor int64) Total { return Total{Minor: minor} }

// Plus is t + u; an overflow on either side, or of the sum, is Overflow.
func (t Total) Plus(u Total) Total {
	if t.Overflow || u.Overflow {
		return Total{Overflow: true}
	}
	s, err := Add(t.Minor, u.Minor)
	if err != nil {
		return Total{Overflow: true}
	}
	return Total{Minor: s}
}

// Int64 is the total as a number, or nil when it is out of range: a JSON
// figure that is null rather than wrong.
func (t Total) Int64() *int64 {
	if t.Overflow {
		return nil
	}
	m := t.Minor
	return &m
}
