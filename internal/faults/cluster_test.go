package faults_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/faults"
)

// A cluster stops fast or immediately and starts again on its port with
// every committed row.
func TestCluster(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := faults.NewCluster(t)
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(`CREATE TABLE kept (n int)`); err != nil {
		t.Fatal(err)
	}
	for i, mode := range []string{"fast", "immediate"} {
		if err := exec(`INSERT INTO kept VALUES (1)`); err != nil {
			t.Fatal(err)
		}
		if err := c.Stop(mode); err != nil {
			t.Fatal(err)
		}
		if err := exec(`SELECT 1`); err == nil {
			t.Fatalf("stopped %s, the server still answers", mode)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = conn.QueryRow(ctx, `SELECT count(*) FROM kept`).Scan(&n)
		conn.Close(ctx)
		if err != nil || n != i+1 {
			t.Fatalf("after a %s stop: %d rows (%v), want %d", mode, n, err, i+1)
		}
	}
	if err := c.CreateDatabase(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if err := exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
}
