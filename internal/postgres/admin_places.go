package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/catalog"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// The platform admin's places: cities, theatres, who administers them, and
// the audit log. Each change takes an audit func that builds its entry from
// what the change made; the entry is written in the change's transaction.

// CreateCityAudited adds a city and its audit entry in one transaction.
// A taken slug fails with catalog.ErrCityExists.
func (s *Store) CreateCityAudited(ctx context.Context, name, slug string, entry func(catalog.City) audit.Entry) (catalog.City, error) {
	c := catalog.City{Name: name, Slug: slug}
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if c.ID, err = insertCity(ctx, tx, name, slug); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(c))
	})
	return c, err
}

// CreateTheatreAudited adds a theatre to the city named by nt.City, and its
// audit entry, in one transaction. An unknown city or a name the city
// already has is a *catalog.FieldError.
func (s *Store) CreateTheatreAudited(ctx context.Context, nt catalog.NewTheatre, entry func(catalog.AdminTheatre) audit.Entry) (catalog.AdminTheatre, error) {
	var t catalog.AdminTheatre
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var cityID int64
		err := tx.QueryRow(ctx, `SELECT id FROM cities WHERE slug = $1`, nt.City).Scan(&cityID)
		if errors.Is(err, pgx.ErrNoRows) {
			return &catalog.FieldError{Field: "city", Message: fmt.Sprintf("there is no city with slug %q", nt.City)}
		}
		if err != nil {
			return fmt.Errorf("city %q: %w", nt.City, err)
		}
		id, err := insertTheatre(ctx, tx, catalog.Theatre{CityID: cityID, Name: nt.Name, Address: nt.Address, TimeZone: nt.TimeZone, Currency: nt.Currency},
			nt.CleaningBuffer, nt.Policy, nt.Settings)
		if err != nil {
			return err
		}
		if t, err = readTheatre(ctx, tx, id, ""); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(t))
	})
	if err != nil {
		return t, fmt.Errorf("create theatre %q: %w", nt.Name, err)
	}
	return t, nil
}

// UpdateTheatre changes theatre id by p and writes the audit entry of the
// change (from the theatre before and after) in the same transaction.
func (s *Store) UpdateTheatre(ctx context.Context, id int64, p catalog.TheatrePatch, entry func(before, after catalog.AdminTheatre) audit.Entry) (catalog.AdminTheatre, error) {
	var after catalog.AdminTheatre
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := readTheatre(ctx, tx, id, "FOR UPDATE OF t")
		if err != nil {
			return err
		}
		var buffer *int64
		if p.CleaningBuffer != nil {
			micros := p.CleaningBuffer.Microseconds()
			buffer = &micros
		}
		_, err = tx.Exec(ctx, `
			UPDATE theatres SET name = coalesce($2, name), address = coalesce($3, address),
			       timezone = coalesce($4, timezone),
			       cleaning_buffer = coalesce($5 * interval '1 microsecond', cleaning_buffer),
			       currency = coalesce($6, currency), settings = settings || $7
			 WHERE id = $1`, id, p.Name, p.Address, p.TimeZone, buffer, p.Currency, p.Settings.Document())
		if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "theatres_city_id_name_key" {
			return errTheatreNameTaken
		}
		if err != nil {
			return err
		}
		if p.Policy != nil {
			if _, err := tx.Exec(ctx, `DELETE FROM refund_tiers WHERE theatre_id = $1`, id); err != nil {
				return err
			}
			if err := insertRefundTiers(ctx, tx, id, p.Policy); err != nil {
				return err
			}
		}
		if after, err = readTheatre(ctx, tx, id, ""); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(before, after))
	})
	if err != nil {
		return after, fmt.Errorf("update theatre %d: %w", id, err)
	}
	return after, nil
}

const adminTheatreColumns = `t.id, c.id, c.name, c.slug, t.name, t.address, t.timezone, t.currency,
	(extract(epoch FROM t.cleaning_buffer) * 1000000)::bigint,
	ARRAY(SELECT (extract(epoch FROM r.min_before) * 1000000)::bigint FROM refund_tiers r
	       WHERE r.theatre_id = t.id ORDER BY r.min_before DESC),
	ARRAY(SELECT r.percent FROM refund_tiers r WHERE r.theatre_id = t.id ORDER BY r.min_before DESC),
	t.settings`

const adminTheatreFrom = `theatres t JOIN cities c ON c.id = t.city_id`

func scanAdminTheatre(row pgx.Row) (catalog.AdminTheatre, error) {
	var (
		t              catalog.AdminTheatre
		buffer         int64
		befores        []int64
		percents       []int32
		tiersOfTheatre []booking.RefundTier
		settings       []byte
	)
	err := row.Scan(&t.ID, &t.CityID, &t.CityName, &t.CitySlug, &t.Name, &t.Address, &t.TimeZone, &t.Currency,
		&buffer, &befores, &percents, &settings)
	if err != nil {
		return t, err
	}
	if t.Settings, err = catalog.ReadTheatreSettings(settings); err != nil {
		return t, fmt.Errorf("theatre %d: %w", t.ID, err)
	}
	t.CleaningBuffer = time.Duration(buffer) * time.Microsecond
	for i, b := range befores {
		tiersOfTheatre = append(tiersOfTheatre, booking.RefundTier{Before: time.Duration(b) * time.Microsecond, Percent: int(percents[i])})
	}
	t.Policy = booking.RefundPolicy{Tiers: tiersOfTheatre}
	if len(tiersOfTheatre) == 0 {
		t.Policy = booking.DefaultRefundPolicy
	}
	return t, nil
}

// readTheatre reads theatre id, locking it as lock says ("" for no lock),
// or fails with booking.ErrNotFound.
func readTheatre(ctx context.Context, q querier, id int64, lock string) (catalog.AdminTheatre, error) {
	t, err := scanAdminTheatre(q.QueryRow(ctx, `SELECT `+adminTheatreColumns+` FROM `+adminTheatreFrom+` WHERE t.id = $1 `+lock, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("theatre %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("read theatre %d: %w", id, err)
	}
	return t, nil
}

// AdminTheatres lists the theatres userID was granted, or every theatre
// when all, by city and name.
func (s *Store) AdminTheatres(ctx context.Context, userID string, all bool) ([]catalog.AdminTheatre, error) {
	if !all && !validID(userID) {
		return nil, nil
	}
	var user *string
	if !all {
		user = &userID
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+adminTheatreColumns+` FROM `+adminTheatreFrom+`
		 WHERE $1::uuid IS NULL OR t.id IN (SELECT theatre_id FROM theatre_staff WHERE user_id = $1)
		 ORDER BY c.name, t.name, t.id`, user)
	if err != nil {
		return nil, fmt.Errorf("list theatres: %w", err)
	}
	theatres, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.AdminTheatre, error) { return scanAdminTheatre(r) })
	if err != nil {
		return nil, fmt.Errorf("list theatres: %w", err)
	}
	return theatres, nil
}

// AdminTheatre returns theatre id with its screens and admins, or
// booking.ErrNotFound.
func (s *Store) AdminTheatre(ctx context.Context, id int64) (catalog.TheatreDetail, error) {
	var d catalog.TheatreDetail
	var err error
	if d.AdminTheatre, err = readTheatre(ctx, s.pool, id, ""); err != nil {
		return d, err
	}
	rows, err := s.pool.Query(ctx, `
		SELECT sc.id, sc.name, (SELECT count(*) FROM seats s WHERE s.screen_id = sc.id), sc.retired_at IS NOT NULL
		  FROM screens sc WHERE sc.theatre_id = $1 ORDER BY sc.name, sc.id`, id)
	if err != nil {
		return d, fmt.Errorf("screens of theatre %d: %w", id, err)
	}
	if d.Screens, err = pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.ScreenSummary]); err != nil {
		return d, fmt.Errorf("screens of theatre %d: %w", id, err)
	}
	if d.Staff, err = theatreStaff(ctx, s.pool, id); err != nil {
		return d, err
	}
	return d, nil
}

// theatreStaff lists the staff of theatre id by role, then email.
func theatreStaff(ctx context.Context, q querier, id int64) ([]catalog.StaffMember, error) {
	rows, err := q.Query(ctx, `
		SELECT u.id::text, u.email, u.name, u.role, ts.role
		  FROM theatre_staff ts JOIN users u ON u.id = ts.user_id
		 WHERE ts.theatre_id = $1
		 ORDER BY array_position(ARRAY['manager', 'box_office', 'usher'], ts.role), u.email`, id)
	if err != nil {
		return nil, fmt.Errorf("staff of theatre %d: %w", id, err)
	}
	staff, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.StaffMember, error) {
		var m catalog.StaffMember
		err := r.Scan(&m.ID, &m.Email, &m.Name, &m.Role, &m.StaffRole)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("staff of theatre %d: %w", id, err)
	}
	return staff, nil
}

// TheatreStaff lists the staff of theatre id, or booking.ErrNotFound.
func (s *Store) TheatreStaff(ctx context.Context, id int64) ([]catalog.StaffMember, error) {
	if _, err := readTheatre(ctx, s.pool, id, ""); err != nil {
		return nil, err
	}
	return theatreStaff(ctx, s.pool, id)
}

// StaffRole is userID's role at theatre theatreID, or "" for none.
func (s *Store) StaffRole(ctx context.Context, userID string, theatreID int64) (auth.StaffRole, error) {
	if !validID(userID) {
		return "", nil
	}
	var role auth.StaffRole
	err := s.pool.QueryRow(ctx, `SELECT role FROM theatre_staff WHERE user_id = $1 AND theatre_id = $2`,
		userID, theatreID).Scan(&role)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("staff role of %s at theatre %d: %w", userID, theatreID, err)
	}
	return role, nil
}

// GrantStaff gives the account of email role at theatre theatreID: a
// moviegoer becomes theatre staff, a platform admin stays one. Granting the
// role it has changes nothing and writes no entry; another role replaces
// it, with entry(the account, its role before or "", role). An unknown
// theatre is booking.ErrNotFound, an unknown email auth.ErrUnknownAccount.
func (s *Store) GrantStaff(ctx context.Context, theatreID int64, email string, role auth.StaffRole,
	entry func(u auth.User, before, after auth.StaffRole) audit.Entry) (catalog.StaffMember, error) {
	m := catalog.StaffMember{StaffRole: role}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTheatre(ctx, tx, theatreID); err != nil {
			return err
		}
		var err error
		if m.User, err = lockUserByEmail(ctx, tx, email); err != nil {
			return err
		}
		var before auth.StaffRole
		err = tx.QueryRow(ctx, `SELECT role FROM theatre_staff WHERE theatre_id = $1 AND user_id = $2`,
			theatreID, m.ID).Scan(&before)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if before == role {
			return nil
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, $3)
			ON CONFLICT (theatre_id, user_id) DO UPDATE SET role = EXCLUDED.role`, theatreID, m.ID, role); err != nil {
			return err
		}
		if m.Role == auth.RoleMoviegoer {
			if err := setRole(ctx, tx, m.ID, auth.RoleTheatreAdmin); err != nil {
				return err
			}
			m.Role = auth.RoleTheatreAdmin
		}
		return s.insertAudit(ctx, tx, entry(m.User, before, role))
	})
	if err != nil {
		return m, fmt.Errorf("grant %s of theatre %d: %w", role, theatreID, err)
	}
	return m, nil
}

// RevokeTheatre ends userID's role at theatre theatreID. Theatre staff
// left with no theatre become a moviegoer again; a platform admin keeps
// their role. An account with no role there is left as it is (no entry);
// an unknown theatre or account is booking.ErrNotFound. The entry is
// entry(the account as it was before, its role there).
func (s *Store) RevokeTheatre(ctx context.Context, theatreID int64, userID string, entry func(auth.User, auth.StaffRole) audit.Entry) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTheatre(ctx, tx, theatreID); err != nil {
			return err
		}
		u, err := lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		var role auth.StaffRole
		err = tx.QueryRow(ctx, `DELETE FROM theatre_staff WHERE theatre_id = $1 AND user_id = $2 RETURNING role`,
			theatreID, u.ID).Scan(&role)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		before := u
		var left bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM theatre_staff WHERE user_id = $1)`, u.ID).Scan(&left); err != nil {
			return err
		}
		if !left && u.Role == auth.RoleTheatreAdmin {
			if err := setRole(ctx, tx, u.ID, auth.RoleMoviegoer); err != nil {
				return err
			}
		}
		return s.insertAudit(ctx, tx, entry(before, role))
	})
	if err != nil {
		return fmt.Errorf("revoke theatre %d of %s: %w", theatreID, userID, err)
	}
	return nil
}

// lockTheatre locks theatre id against deletion for the rest of tx, or
// fails with booking.ErrNotFound.
func lockTheatre(ctx context.Context, tx pgx.Tx, id int64) error {
	var found int64
	err := tx.QueryRow(ctx, `SELECT id FROM theatres WHERE id = $1 FOR KEY SHARE`, id).Scan(&found)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("theatre %d: %w", id, booking.ErrNotFound)
	}
	return err
}

// lockUserByEmail locks the account of email, so grants and revocations of
// one account take turns and its role follows its grants; an unknown email
// is auth.ErrUnknownAccount.
func lockUserByEmail(ctx context.Context, tx pgx.Tx, email string) (auth.User, error) {
	var u auth.User
	email = strings.ToLower(strings.TrimSpace(email))
	if strings.ContainsRune(email, 0) {
		return u, auth.ErrUnknownAccount // Postgres text cannot hold NUL: no such account
	}
	err := tx.QueryRow(ctx, `SELECT id::text, email, name, role FROM users WHERE email = $1 FOR UPDATE`, email).
		Scan(&u.ID, &u.Email, &u.Name, &u.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, auth.ErrUnknownAccount
	}
	return u, err
}

// lockUser locks the account with id (see lockUserByEmail), or fails with
// booking.ErrNotFound.
func lockUser(ctx context.Context, tx pgx.Tx, id string) (auth.User, error) {
	var u auth.User
	if !validID(id) {
		return u, fmt.Errorf("user %q: %w", id, booking.ErrNotFound)
	}
	err := tx.QueryRow(ctx, `SELECT id::text, email, name, role FROM users WHERE id = $1 FOR UPDATE`, id).
		Scan(&u.ID, &u.Email, &u.Name, &u.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, fmt.Errorf("user %s: %w", id, booking.ErrNotFound)
	}
	return u, err
}

func setRole(ctx context.Context, tx pgx.Tx, userID string, role auth.Role) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET role = $2 WHERE id = $1`, userID, role); err != nil {
		return fmt.Errorf("set role of %s: %w", userID, err)
	}
	return nil
}

// SetPlatformAdmin makes the account of email a platform admin, for the
// command line that makes the first one; an unknown email is
// booking.ErrNotFound. It reports the role the account had.
func (s *Store) SetPlatformAdmin(ctx context.Context, email string) (auth.Role, error) {
	var was auth.Role
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := lockUserByEmail(ctx, tx, email)
		if errors.Is(err, auth.ErrUnknownAccount) {
			return booking.ErrNotFound
		}
		if err != nil {
			return err
		}
		was = u.Role
		return setRole(ctx, tx, u.ID, auth.RolePlatformAdmin)
	})
	if err != nil {
		return was, fmt.Errorf("make %s platform admin: %w", email, err)
	}
	return was, nil
}

// AuditLog lists entries of the audit log, newest first.
func (s *Store) AuditLog(ctx context.Context, f audit.Filter) ([]audit.Record, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	var theatre, from, to, actor any
	if f.TheatreID != 0 {
		theatre = f.TheatreID
	}
	if f.ActorEmail != "" {
		actor = strings.ToLower(f.ActorEmail)
	}
	if !f.From.IsZero() {
		from = f.From
	}
	if !f.To.IsZero() {
		to = f.To.AddDate(0, 0, 1)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT a.id, a.at, a.actor_id::text, u.email, coalesce(a.theatre_id, 0), a.action, a.object, a.before, a.after
		  FROM audit_log a JOIN users u ON u.id = a.actor_id
		 WHERE ($1::bigint IS NULL OR a.theatre_id = $1)
		   AND ($2::text IS NULL OR u.email = $2)
		   AND ($3::timestamptz IS NULL OR a.at >= $3)
		   AND ($4::timestamptz IS NULL OR a.at < $4)
		 ORDER BY a.at DESC, a.id DESC
		 LIMIT $5`, theatre, actor, from, to, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	records, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.Record, error) {
		var (
			a             audit.Record
			before, after []byte
		)
		err := r.Scan(&a.ID, &a.At, &a.ActorID, &a.ActorEmail, &a.TheatreID, &a.Action, &a.Object, &before, &after)
		if before != nil {
			a.Before = json.RawMessage(before)
		}
		if after != nil {
			a.After = json.RawMessage(after)
		}
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	return records, nil
}

// StaffRoles are userID's roles by theatre.
func (s *Store) StaffRoles(ctx context.Context, userID string) (map[int64]auth.StaffRole, error) {
	roles := map[int64]auth.StaffRole{}
	if !validID(userID) {
		return roles, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT theatre_id, role FROM theatre_staff WHERE user_id = $1`, userID)
	if err != nil {
		return nil, fmt.Errorf("staff roles of %s: %w", userID, err)
	}
	var theatre int64
	var role auth.StaffRole
	_, err = pgx.ForEachRow(rows, []any{&theatre, &role}, func() error {
		roles[theatre] = role
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("staff roles of %s: %w", userID, err)
	}
	return roles, nil
}
