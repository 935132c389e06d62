package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const adminUsage = `usage: marquee admin create --email E [--name N]

Creates a platform admin account, who may then grant theatre admins in the
admin area. Sign-up never makes an admin: this command is the only way to
the first one. An account that already has the email is made platform admin
(its password stays as it is).

Flags of admin create:
  --email   the admin's email address (required)
  --name    the admin's name (default "Platform admin")

Environment:
  DATABASE_URL             Postgres connection string (required); migrations
                           are applied first, as serve does
  MARQUEE_ADMIN_PASSWORD   the new account's password; without it the
                           password is asked for on the terminal
`

// adminPasswordVar names the variable with the new admin's password.
const adminPasswordVar = "MARQUEE_ADMIN_PASSWORD"

// runAdmin is `marquee admin ...`, returning the exit status as run does.
// stdin is where a password is asked for when the environment has none.
func runAdmin(args []string, getenv func(string) string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "create" {
		if len(args) > 0 && isHelp(args[0]) {
			fmt.Fprint(stdout, adminUsage)
			return 0
		}
		fmt.Fprint(stderr, adminUsage)
		return 2
	}
	fs := flag.NewFlagSet("marquee admin create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "the admin's email address")
	name := fs.String("name", "Platform admin", "the admin's name")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, adminUsage)
			return 0
		}
		fmt.Fprintf(stderr, "marquee admin create: %v\n\n%s", err, adminUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "marquee admin create: unexpected argument %q\n\n%s", fs.Arg(0), adminUsage)
		return 2
	}
	if *email == "" {
		fmt.Fprintf(stderr, "marquee admin create: --email is required\n\n%s", adminUsage)
		return 2
	}
	databaseURL := getenv("DATABASE_URL")
	if databaseURL == "" {
		fmt.Fprintln(stderr, "marquee admin create: DATABASE_URL is required")
		return 2
	}
	c := adminCreation{
		email: *email, name: *name, password: getenv(adminPasswordVar),
		stdin: stdin, stdout: stdout, stderr: stderr, hasher: auth.DefaultHasher,
	}
	return c.run(context.Background(), databaseURL)
}

func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// adminCreation is one `marquee admin create`.
type adminCreation struct {
	email, name, password string
	stdin                 *os.File
	stdout, stderr        io.Writer
	hasher                auth.Hasher
}

// errUsage is a failure the person running the command must fix (exit 2);
// its message has been printed.
var errUsage = errors.New("bad usage")

func (c adminCreation) run(ctx context.Context, databaseURL string) int {
	err := c.create(ctx, databaseURL)
	switch {
	case errors.Is(err, errUsage):
		return 2
	case err != nil:
		fmt.Fprintf(c.stderr, "marquee admin create: %v\n", err)
		return 1
	}
	return 0
}

func (c adminCreation) create(ctx context.Context, databaseURL string) error {
	// The email and name are checked before anything else: the password
	// may still have to be asked for.
	su, err := auth.SignUp{Email: c.email, Name: c.name}.NormalizeIdentity()
	if err != nil {
		return c.refuse(err)
	}
	if err := postgres.Migrate(ctx, databaseURL); err != nil {
		return err
	}
	pool, err := postgres.Connect(ctx, databaseURL, 2)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.NewStore(pool)

	// An existing account is promoted; its password is not ours to change.
	if was, err := store.SetPlatformAdmin(ctx, su.Email); !errors.Is(err, booking.ErrNotFound) {
		if err != nil {
			return err
		}
		if was == auth.RolePlatformAdmin {
			fmt.Fprintf(c.stdout, "%s is already a platform admin; nothing changed.\n", su.Email)
		} else {
			fmt.Fprintf(c.stdout, "%s had an account (%s): it is now a platform admin; its password is unchanged.\n", su.Email, was)
		}
		return nil
	}

	if su.Password, err = c.readPassword(); err != nil {
		return err
	}
	if err := checkAdminPassword(su); err != nil {
		return c.refuse(err)
	}
	hash, err := c.hasher.Hash(su.Password)
	if err != nil {
		return err
	}
	u, err := store.CreateUser(ctx, su.Email, su.Name, hash, auth.RolePlatformAdmin)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "Created platform admin %s (user %s). Sign in at /login.\n", u.Email, u.ID)
	return nil
}

// refuse prints what the person must correct and returns errUsage.
func (c adminCreation) refuse(err error) error {
	for _, p := range auth.Problems(err) {
		fmt.Fprintf(c.stderr, "marquee admin create: %s: %s\n", p.Field, p.Message)
	}
	if len(auth.Problems(err)) == 0 {
		fmt.Fprintf(c.stderr, "marquee admin create: %v\n", err)
	}
	return errUsage
}

// readPassword is the password from the environment, else asked twice on
// the terminal without echo. Off a terminal it refuses: a password piped
// in would sit in a shell history or a script.
func (c adminCreation) readPassword() (string, error) {
	if c.password != "" {
		return c.password, nil
	}
	fd := int(c.stdin.Fd())
	if !term.IsTerminal(fd) {
		fmt.Fprintf(c.stderr, "marquee admin create: no password: set %s, or run this on a terminal to be asked for one\n", adminPasswordVar)
		return "", errUsage
	}
	ask := func(prompt string) (string, error) {
		fmt.Fprint(c.stderr, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(c.stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		return string(b), nil
	}
	first, err := ask("Password for the new platform admin: ")
	if err != nil {
		return "", err
	}
	again, err := ask("The same password again: ")
	if err != nil {
		return "", err
	}
	if first != again {
		fmt.Fprintln(c.stderr, "marquee admin create: the two passwords differ; nothing was created")
		return "", errUsage
	}
	return first, nil
}

// minAdminPassword is the shortest password of a platform admin: the
// account that can do everything gets a longer one than sign-up asks for.
const minAdminPassword = 12

// checkAdminPassword applies sign-up's password rules (auth.CheckPassword:
// not a common password, neither the email address nor the name), and
// more for the most powerful account: at least minAdminPassword
// characters, and not one character over and over.
func checkAdminPassword(su auth.SignUp) error {
	if _, err := su.Normalize(); err != nil {
		return err
	}
	pw := strings.TrimSpace(su.Password)
	weak := func(msg string) error { return &auth.FieldError{Field: "password", Message: msg} }
	switch {
	case utf8.RuneCountInString(pw) < minAdminPassword:
		return weak(fmt.Sprintf("an admin's password needs at least %d characters", minAdminPassword))
	case strings.Trim(pw, pw[:firstRune(pw)]) == "":
		return weak("use more than one character over and over")
	}
	return nil
}

// firstRune is the length in bytes of s's first character.
func firstRune(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}
