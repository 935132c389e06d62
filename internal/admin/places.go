package admin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/names"
)

// Limits of what an admin may set of a place.
const (
	maxNameLen    = 100 // cities.name, theatres.name
	maxAddressLen = 300
	// MaxCleaningBuffer is the longest cleaning time between two shows
	// (the theatres table allows four hours).
	MaxCleaningBuffer = 240 * time.Minute
	// DefaultCleaningBuffer is the cleaning time of a theatre that sets none.
	DefaultCleaningBuffer = 15 * time.Minute
	maxRefundTiers        = 10
	maxTierBefore         = 365 * 24 * time.Hour
	// MaxAuditEntries is the most entries one read of the audit log returns.
	MaxAuditEntries = 500
)

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// CreateCity adds a city (platform admins only). A taken slug is
// catalog.ErrCityExists.
func (s *Service) CreateCity(ctx context.Context, a Actor, name, slug string) (catalog.City, error) {
	if err := requirePlatform(a); err != nil {
		return catalog.City{}, err
	}
	name = strings.TrimSpace(name)
	if err := checkName("name", name); err != nil {
		return catalog.City{}, err
	}
	if len(slug) > maxNameLen || !slugPattern.MatchString(slug) {
		return catalog.City{}, &catalog.FieldError{Field: "slug",
			Message: "use lower-case letters and digits in words joined by single dashes, like new-delhi"}
	}
	return s.Store.CreateCityAudited(ctx, name, slug, func(c catalog.City) audit.Entry {
		return auditEntry(a, 0, "city.create", fmt.Sprintf("city %d", c.ID), nil, cityRecord{Name: c.Name, Slug: c.Slug})
	})
}

// cityRecord is a city as the audit log keeps it.
type cityRecord struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// TheatreRecord is a theatre as the audit log keeps it.
type TheatreRecord struct {
	City                  string       `json:"city"`
	Name                  string       `json:"name"`
	Address               string       `json:"address"`
	TimeZone              string       `json:"timezone"`
	Currency              string       `json:"currency"`
	CleaningBufferMinutes int          `json:"cleaning_buffer_minutes"`
	RefundTiers           []TierRecord `json:"refund_tiers"`
	catalog.TheatreSettings
}

// TierRecord is a refund tier in whole hours, as admins set it.
type TierRecord struct {
	HoursBefore int `json:"hours_before"`
	Percent     int `json:"percent"`
}

// Record is t as the audit log keeps it (and the API shows it).
func Record(t catalog.AdminTheatre) TheatreRecord {
	tiers := make([]TierRecord, len(t.Policy.Tiers))
	for i, tier := range t.Policy.Tiers {
		tiers[i] = TierRecord{HoursBefore: int(tier.Before / time.Hour), Percent: tier.Percent}
	}
	return TheatreRecord{
		City: t.CitySlug, Name: t.Name, Address: t.Address, TimeZone: t.TimeZone, Currency: t.Currency,
		CleaningBufferMinutes: int(t.CleaningBuffer / time.Minute), RefundTiers: tiers, TheatreSettings: t.Settings,
	}
}

// TheatreInput is what an admin sends to create or change a theatre: a
// nil field is not given.
type TheatreInput struct {
	City                  *string
	Name                  *string
	Address               *string
	TimeZone              *string
	Currency              *string // ISO 4217; INR when a new theatre names none
	CleaningBufferMinutes *int
	RefundTiers           *[]TierRecord
	Settings              catalog.TheatreSettingsPatch // a new theatre's unsaid ones are the defaults
}

// CreateTheatre adds a theatre to a city (platform admins only). City,
// name and time zone are required; the cleaning buffer defaults to 15
// minutes, the refund policy to the default one and each setting to its default
// (catalog.DefaultTheatreSettings).
func (s *Service) CreateTheatre(ctx context.Context, a Actor, in TheatreInput) (catalog.AdminTheatre, error) {
	if err := requirePlatform(a); err != nil {
		return catalog.AdminTheatre{}, err
	}
	in = in.withDefaults()
	if err := CheckTheatre(in, true); err != nil {
		return catalog.AdminTheatre{}, err
	}
	p, err := in.patch()
	if err != nil {
		return catalog.AdminTheatre{}, err
	}
	nt := catalog.NewTheatre{City: *in.City, Name: *p.Name, Address: *p.Address, TimeZone: *p.TimeZone,
		CleaningBuffer: p.CleaningBuffer, Policy: p.Policy, Settings: catalog.DefaultTheatreSettings().With(p.Settings)}
	if p.Currency != nil {
		nt.Currency = *p.Currency
	}
	return s.Store.CreateTheatreAudited(ctx, nt, func(t catalog.AdminTheatre) audit.Entry {
		return auditEntry(a, t.ID, "theatre.create", fmt.Sprintf("theatre %d", t.ID), nil, Record(t))
	})
}

// UpdateTheatre changes the given fields of a theatre; a theatre admin may
// change their own theatres. The city cannot change.
func (s *Service) UpdateTheatre(ctx context.Context, a Actor, theatreID int64, in TheatreInput) (catalog.AdminTheatre, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return catalog.AdminTheatre{}, err
	}
	if err := CheckTheatre(in, false); err != nil {
		return catalog.AdminTheatre{}, err
	}
	p, err := in.patch()
	if err != nil {
		return catalog.AdminTheatre{}, err
	}
	if p == (catalog.TheatrePatch{}) {
		// Nothing to change, so nothing to audit.
		d, err := s.Store.AdminTheatre(ctx, theatreID)
		return d.AdminTheatre, err
	}
	return s.Store.UpdateTheatre(ctx, theatreID, p, func(before, after catalog.AdminTheatre) audit.Entry {
		return auditEntry(a, theatreID, "theatre.update", fmt.Sprintf("theatre %d", theatreID), Record(before), Record(after))
	})
}

// withDefaults is a new theatre's input with what it leaves out as a new
// theatre has it: no address, the default cleaning buffer.
func (in TheatreInput) withDefaults() TheatreInput {
	if in.Address == nil {
		in.Address = new(string)
	}
	if in.CleaningBufferMinutes == nil {
		minutes := int(DefaultCleaningBuffer / time.Minute)
		in.CleaningBufferMinutes = &minutes
	}
	return in
}

// CheckTheatre reports every field of in that CreateTheatre (create) or
// UpdateTheatre would refuse, each a *catalog.FieldError, joined
// (catalog.FieldErrors reads them all): a form names all its mistakes at
// once, not one a try.
func CheckTheatre(in TheatreInput, create bool) error {
	var errs []error
	if create {
		for _, f := range []struct {
			name  string
			value *string
		}{{"city", in.City}, {"name", in.Name}, {"timezone", in.TimeZone}} {
			if f.value == nil {
				errs = append(errs, &catalog.FieldError{Field: f.name, Message: "this field is required"})
			}
		}
		if in.City != nil && (strings.ContainsRune(*in.City, 0) || len(*in.City) > maxNameLen) {
			errs = append(errs, &catalog.FieldError{Field: "city", Message: "there is no city with this slug"})
		}
	} else if in.City != nil {
		errs = append(errs, &catalog.FieldError{Field: "city", Message: "a theatre cannot move to another city"})
	}
	_, err := in.patch()
	return errors.Join(append(errs, err)...)
}

// patch checks every given field and returns them as the store takes them;
// what it refuses is every field at fault, joined.
func (in TheatreInput) patch() (catalog.TheatrePatch, error) {
	var p catalog.TheatrePatch
	var errs []error
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if err := checkName("name", name); err != nil {
			errs = append(errs, err)
		}
		p.Name = &name
	}
	if in.Address != nil {
		address := strings.TrimSpace(*in.Address)
		if len([]rune(address)) > maxAddressLen || hasControl(address) {
			errs = append(errs, &catalog.FieldError{Field: "address",
				Message: fmt.Sprintf("enter the address in at most %d characters, without control characters", maxAddressLen)})
		}
		p.Address = &address
	}
	if in.TimeZone != nil {
		if err := checkTimeZone(*in.TimeZone); err != nil {
			errs = append(errs, err)
		}
		p.TimeZone = in.TimeZone
	}
	if in.Currency != nil {
		if !money.ValidCurrency(*in.Currency) {
			errs = append(errs, &catalog.FieldError{Field: "currency", Message: invalidCurrency(*in.Currency)})
		}
		p.Currency = in.Currency
	}
	if in.CleaningBufferMinutes != nil {
		buffer := time.Duration(*in.CleaningBufferMinutes) * time.Minute
		if *in.CleaningBufferMinutes < 0 || buffer > MaxCleaningBuffer {
			errs = append(errs, &catalog.FieldError{Field: "cleaning_buffer_minutes",
				Message: fmt.Sprintf("give the cleaning time between shows in minutes, from 0 to %d", int(MaxCleaningBuffer/time.Minute))})
		}
		p.CleaningBuffer = &buffer
	}
	if in.RefundTiers != nil {
		policy, err := refundPolicy(*in.RefundTiers)
		if err != nil {
			errs = append(errs, err)
		}
		p.Policy = &policy
	}
	if err := catalog.DefaultTheatreSettings().With(in.Settings).Validate(); err != nil {
		errs = append(errs, err)
	}
	p.Settings = in.Settings
	return p, errors.Join(errs...)
}

// checkTimeZone accepts an IANA zone name. "Local" is refused: it is
// whatever zone the server runs in, not the theatre's.
func checkTimeZone(zone string) error {
	bad := &catalog.FieldError{Field: "timezone", Message: "use an IANA time zone name, like Asia/Kolkata"}
	if zone == "" || zone == "Local" || len(zone) > 64 || hasControl(zone) {
		return bad
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return bad
	}
	return nil
}

// refundPolicy checks refund tiers: at least one (a theatre that refunds
// nothing sends one tier of 0 percent), whole hours, distinct, and never
// less back for cancelling earlier.
func refundPolicy(tiers []TierRecord) (booking.RefundPolicy, error) {
	bad := func(msg string) error { return &catalog.FieldError{Field: "refund_tiers", Message: msg} }
	if len(tiers) == 0 || len(tiers) > maxRefundTiers {
		return booking.RefundPolicy{}, bad(fmt.Sprintf("give 1 to %d refund tiers (one of 0 percent refunds nothing)", maxRefundTiers))
	}
	seen := map[int]bool{}
	policy := booking.RefundPolicy{Tiers: make([]booking.RefundTier, 0, len(tiers))}
	for _, t := range tiers {
		before := time.Duration(t.HoursBefore) * time.Hour
		switch {
		case t.HoursBefore < 0 || before > maxTierBefore:
			return policy, bad("give hours_before from 0 to 8760 (a year)")
		case t.Percent < 0 || t.Percent > 100:
			return policy, bad("give percent from 0 to 100")
		case seen[t.HoursBefore]:
			return policy, bad(fmt.Sprintf("two refund tiers start %d hours before the show", t.HoursBefore))
		}
		seen[t.HoursBefore] = true
		policy.Tiers = append(policy.Tiers, booking.RefundTier{Before: before, Percent: t.Percent})
	}
	// Cancelling earlier never gives back less: a moviegoer would do
	// better to wait, which no theatre means.
	byHours := slices.SortedFunc(slices.Values(tiers), func(a, b TierRecord) int { return cmp.Compare(b.HoursBefore, a.HoursBefore) })
	for i := 1; i < len(byHours); i++ {
		if earlier, later := byHours[i-1], byHours[i]; earlier.Percent < later.Percent {
			return policy, bad(fmt.Sprintf("cancelling %d hours before the show would give back %d%%, less than %d hours before (%d%%): "+
				"give earlier cancellations at least as much", earlier.HoursBefore, earlier.Percent, later.HoursBefore, later.Percent))
		}
	}
	return policy, nil
}

func checkName(field, name string) error {
	if name == "" || len([]rune(name)) > maxNameLen || hasControl(name) {
		return &catalog.FieldError{Field: field,
			Message: fmt.Sprintf("enter a name of 1 to %d characters, without control characters", maxNameLen)}
	}
	if r, ok := names.Hidden(name); ok {
		return &catalog.FieldError{Field: field, Message: names.Problem("the name", r)}
	}
	return nil
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// Theatres lists the theatres the actor administers (a platform admin:
// all of them).
func (s *Service) Theatres(ctx context.Context, a Actor) ([]catalog.AdminTheatre, error) {
	return s.Store.AdminTheatres(ctx, a.UserID, a.Platform())
}

// Theatre returns a theatre the actor administers, with its screens and
// admins; any other theatre is booking.ErrNotFound.
func (s *Service) Theatre(ctx context.Context, a Actor, theatreID int64) (catalog.TheatreDetail, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return catalog.TheatreDetail{}, err
	}
	return s.Store.AdminTheatre(ctx, theatreID)
}

// grantRecord is a grant as the audit log keeps it.
type grantRecord struct {
	UserID    string         `json:"user_id"`
	Email     string         `json:"email"`
	Role      auth.Role      `json:"role"`
	StaffRole auth.StaffRole `json:"staff_role,omitempty"`
}

// GrantTheatre makes the account of email a manager of a theatre
// (platform admins only). An unknown email is auth.ErrUnknownAccount.
func (s *Service) GrantTheatre(ctx context.Context, a Actor, theatreID int64, email string) (auth.User, error) {
	if err := requirePlatform(a); err != nil {
		return auth.User{}, err
	}
	m, err := s.grant(ctx, a, theatreID, email, auth.StaffManager)
	return m.User, err
}

// GrantStaff gives the account of email role at a theatre, replacing the
// role it had there (platform admins and the theatre's managers). An
// unknown email is auth.ErrUnknownAccount.
func (s *Service) GrantStaff(ctx context.Context, a Actor, theatreID int64, email string, role auth.StaffRole) (catalog.StaffMember, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return catalog.StaffMember{}, err
	}
	if !role.Valid() {
		return catalog.StaffMember{}, &catalog.FieldError{Field: "role", Message: "choose manager, box office or usher"}
	}
	return s.grant(ctx, a, theatreID, email, role)
}

func (s *Service) grant(ctx context.Context, a Actor, theatreID int64, email string, role auth.StaffRole) (catalog.StaffMember, error) {
	if email = strings.TrimSpace(email); email == "" || len(email) > 254 || hasControl(email) {
		return catalog.StaffMember{}, &catalog.FieldError{Field: "email", Message: "enter the email address of an account"}
	}
	return s.Store.GrantStaff(ctx, theatreID, email, role, func(u auth.User, before, after auth.StaffRole) audit.Entry {
		var was any
		if before != "" {
			was = grantRecord{UserID: u.ID, Email: u.Email, Role: u.Role, StaffRole: before}
		}
		return auditEntry(a, theatreID, "theatre_admin.grant", fmt.Sprintf("theatre %d staff %s", theatreID, u.ID),
			was, grantRecord{UserID: u.ID, Email: u.Email, Role: u.Role, StaffRole: after})
	})
}

// Staff lists a theatre's staff (platform admins and the theatre's
// managers).
func (s *Service) Staff(ctx context.Context, a Actor, theatreID int64) ([]catalog.StaffMember, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return nil, err
	}
	return s.Store.TheatreStaff(ctx, theatreID)
}

// RevokeTheatre ends an account's role at a theatre (platform admins
// only).
func (s *Service) RevokeTheatre(ctx context.Context, a Actor, theatreID int64, userID string) error {
	if err := requirePlatform(a); err != nil {
		return err
	}
	return s.revoke(ctx, a, theatreID, userID)
}

// RevokeStaff ends an account's role at a theatre (platform admins and the
// theatre's managers).
func (s *Service) RevokeStaff(ctx context.Context, a Actor, theatreID int64, userID string) error {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return err
	}
	return s.revoke(ctx, a, theatreID, userID)
}

func (s *Service) revoke(ctx context.Context, a Actor, theatreID int64, userID string) error {
	return s.Store.RevokeTheatre(ctx, theatreID, userID, func(u auth.User, role auth.StaffRole) audit.Entry {
		return auditEntry(a, theatreID, "theatre_admin.revoke", fmt.Sprintf("theatre %d staff %s", theatreID, u.ID),
			grantRecord{UserID: u.ID, Email: u.Email, Role: u.Role, StaffRole: role}, nil)
	})
}

// AuditLog reads the audit log, newest first (platform admins only).
func (s *Service) AuditLog(ctx context.Context, a Actor, f audit.Filter) ([]audit.Record, error) {
	if err := requirePlatform(a); err != nil {
		return nil, err
	}
	return s.Store.AuditLog(ctx, f)
}
