package main

import (
	"testing"
	"testing/fstest"
)

func TestNormalize(t *testing.T) {
	dump := `--
-- PostgreSQL database dump
--

\restrict K3yTh4tCh4ng3sEv3ryRun

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

--
-- Name: btree_gist; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;


--
-- Name: EXTENSION btree_gist; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION btree_gist IS 'support for indexing common datatypes in GiST';


--
-- Name: f(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.f(p integer) RETURNS integer
    LANGUAGE plpgsql
    AS $_$
BEGIN
--
SET lock_timeout = 0;


  RETURN $1;
END
$_$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: holds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.holds (
    id uuid NOT NULL
);


--
-- Name: holds holds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_pkey PRIMARY KEY (id);


--
-- Name: holds holds_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- PostgreSQL database dump complete
--

\unrestrict K3yTh4tCh4ng3sEv3ryRun

`
	want := `-- extension btree_gist
CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

-- comment on extension btree_gist
COMMENT ON EXTENSION btree_gist IS 'support for indexing common datatypes in GiST';

-- function f(integer)
CREATE FUNCTION public.f(p integer) RETURNS integer
    LANGUAGE plpgsql
    AS $_$
BEGIN
--
SET lock_timeout = 0;


  RETURN $1;
END
$_$;

-- table holds
CREATE TABLE public.holds (
    id uuid NOT NULL
);

-- constraint holds_pkey on holds
ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_pkey PRIMARY KEY (id);

-- foreign key holds_user_id_fkey on holds
ALTER TABLE ONLY public.holds
    ADD CONSTRAINT holds_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);
`
	if got := string(normalize([]byte(dump))); got != want {
		t.Errorf("normalize =\n%s\nwant\n%s", got, want)
	}
	// Another pg_dump's settings, versions and key leave the same file.
	other := `\restrict An0th3rK3y
-- Dumped from database version 15.21
-- Dumped by pg_dump version 15.21
SET transaction_timeout = 0;
` + dump[len("--\n-- PostgreSQL database dump\n--\n"):]
	if got := string(normalize([]byte(other))); got != want {
		t.Errorf("normalize of another pg_dump's run =\n%s\nwant the same as the first", got)
	}
}

func TestMigrationRange(t *testing.T) {
	fsys := fstest.MapFS{
		"000002_seat_events.up.sql":      {},
		"000002_seat_events.down.sql":    {},
		"000010_theatre_currency.up.sql": {},
		"000001_tables.up.sql":           {},
		"000001_tables.down.sql":         {},
		"schema.sql":                     {},
		"README.md":                      {},
	}
	first, latest, err := migrationRange(fsys)
	if err != nil || first != "000001_tables" || latest != "000010_theatre_currency" {
		t.Errorf("migrationRange = %q, %q, %v; want 000001_tables, 000010_theatre_currency", first, latest, err)
	}
	if _, _, err := migrationRange(fstest.MapFS{"schema.sql": {}}); err == nil {
		t.Error("migrationRange of no migrations: no error")
	}
}
