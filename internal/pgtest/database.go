package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Database is an empty database of a program's own (cmd/bench) on a
// server: created without a testing.TB, dropped by Drop.
type Database struct {
	Name string // <prefix>_<random hex>
	URL  string // the server's URL with the database's name as its path

	serverURL string
}

// CreateDatabase creates an empty database named prefix_<random> on
// serverURL's server.
func CreateDatabase(ctx context.Context, serverURL, prefix string) (*Database, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, errors.New("DATABASE_URL must be a postgres:// URL")
	}
	admin, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", postgres.RedactURL(serverURL), err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	b := make([]byte, 6)
	rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u.Path = "/" + name
	return &Database{Name: name, URL: u.String(), serverURL: serverURL}, nil
}

// Drop drops the database, closing whatever connections it still has. It
// uses a fresh context: it must run after Ctrl-C too.
func (d *Database) Drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, d.serverURL)
	if err != nil {
		return fmt.Errorf("drop database %s: %w", d.Name, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+d.Name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", d.Name, err)
	}
	return nil
}
