package booking

// Violation is one broken booking invariant (I1-I5 of the design).
type Violation struct {
	Invariant string
	Detail    string
}

func (v Violation) String() string { return v.Invariant + ": " + v.Detail }
