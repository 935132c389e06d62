package schedule

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Movies and posters: each form calls the same use case as the JSON API,
// and comes back with what was typed and every mistake at its field.

// MoviesPage is the catalogue with the new movie form (platform admins).
func (h *Handlers) MoviesPage(c echo.Context) error {
	return h.moviesPage(c, http.StatusOK, adminview.MovieForm{})
}

func (h *Handlers) moviesPage(c echo.Context, status int, f adminview.MovieForm) error {
	a := web.Actor(c)
	// The catalogue is the platform admin's to change, as CreateMovie says.
	if !a.Platform() {
		return admin.ErrPlatformOnly
	}
	movies, err := h.Admin.Movies(c.Request().Context(), a)
	if err != nil {
		return err
	}
	return web.Render(c, status, adminview.MoviesPage(adminpage.Meta(h.Server, c, "Movies"), adminpage.Nav(c, adminview.SectionMovies),
		adminview.MoviesView{Movies: movies, Form: f}))
}

// CreateMovieSubmit adds a movie and goes to its page.
func (h *Handlers) CreateMovieSubmit(c echo.Context) error {
	f := movieFormOf(c)
	minutes := readMinutes(&f)
	id, err := h.Admin.CreateMovie(c.Request().Context(), web.Actor(c), catalog.Movie{
		Title: strings.TrimSpace(f.Title), DurationMinutes: minutes, Rating: strings.TrimSpace(f.Rating),
		Language: strings.TrimSpace(f.Language), Synopsis: strings.TrimSpace(f.Synopsis), Genres: splitGenres(f.Genres),
	})
	if addProblems(&f.Faults, err) || f.Any() {
		return h.moviesPage(c, http.StatusUnprocessableEntity, f)
	}
	if err != nil {
		return err
	}
	return web.SeeOther(c, fmt.Sprintf("/admin/movies/%d?added=1", id))
}

// movieFormOf is a movie form as sent.
func movieFormOf(c echo.Context) adminview.MovieForm {
	return adminview.MovieForm{
		Title: c.FormValue("title"), Minutes: strings.TrimSpace(c.FormValue("duration_minutes")),
		Rating: c.FormValue("rating"), Language: c.FormValue("language"),
		Genres: c.FormValue("genres"), Synopsis: c.FormValue("synopsis"),
	}
}

// readMinutes reads the form's running time; one that is not a number is
// named at its field, and read as 0 for the use case, which then names
// every other field at fault too (a running time of 0 is one of them, and
// the field keeps the first message).
func readMinutes(f *adminview.MovieForm) int {
	minutes, err := strconv.Atoi(f.Minutes)
	if err != nil {
		f.Add("duration_minutes", "Give the running time as a whole number of minutes, such as 142.")
		return 0
	}
	return minutes
}

// splitGenres reads the form's genres, separated by commas.
func splitGenres(typed string) []string {
	genres := []string{}
	for _, g := range strings.Split(typed, ",") {
		if g = strings.TrimSpace(g); g != "" {
			genres = append(genres, g)
		}
	}
	return genres
}

// addProblems names every field err is about in faults, and reports
// whether there was any.
func addProblems(faults *adminview.Faults, err error) bool {
	problems := catalog.Problems(err)
	for _, p := range problems {
		faults.Add(p.Field, problem.Sentence(p.Message))
	}
	return len(problems) > 0
}

// UpdateMovieSubmit saves the details form of a movie and shows it again:
// POST /admin/movies/{movie_id}. Every mistake is named at its field, with
// what was typed kept; a running time that would make upcoming shows
// overlap lists them.
func (h *Handlers) UpdateMovieSubmit(c echo.Context) error {
	if !web.Actor(c).Platform() {
		return admin.ErrPlatformOnly
	}
	movieID, err := adminpage.PathID(c, "movie_id")
	if err != nil {
		return problem.NotFound("movie")
	}
	ctx := c.Request().Context()
	f := movieFormOf(c)
	minutes := readMinutes(&f)
	title, rating, language, synopsis, genres := f.Title, f.Rating, f.Language, f.Synopsis, splitGenres(f.Genres)
	up, err := h.Admin.UpdateMovie(ctx, web.Actor(c), movieID, catalog.MoviePatch{
		Title: &title, DurationMinutes: &minutes, Rating: &rating, Language: &language, Synopsis: &synopsis, Genres: &genres,
	})
	v := adminview.MovieView{Edit: f}
	status := http.StatusUnprocessableEntity
	var clash *catalog.RuntimeOverlapError
	switch {
	case addProblems(&v.Edit.Faults, err) || v.Edit.Any():
	case errors.As(err, &clash):
		v.Edit.Error = "The running time was not changed."
		v.Edit.Add("duration_minutes", fmt.Sprintf("A running time of %d minutes would make %s of this movie run into the next show on the screen: see the list.",
			clash.DurationMinutes, format.Plural(len(clash.Overlaps), "upcoming show")))
		v.Clashes = h.runtimeClashes(c, clash)
		status = http.StatusConflict
	case err != nil:
		return problem.Lookup("movie", err)
	default:
		q := "saved=1"
		if n := len(up.ShowsMoved); n > 0 {
			q += "&moved=" + strconv.Itoa(n) + "&by=" + strconv.Itoa(int(up.EndsMovedBy/time.Minute))
		}
		return web.SeeOther(c, fmt.Sprintf("/admin/movies/%d?%s", movieID, q))
	}
	return h.moviePage(c, status, v)
}

// runtimeClashes names the shows of a refused running time, by their start
// in their theatre's time and screen.
func (h *Handlers) runtimeClashes(c echo.Context, e *catalog.RuntimeOverlapError) []adminview.RuntimeClash {
	ctx := c.Request().Context()
	name := func(id int64) (string, string) {
		href := fmt.Sprintf("/admin/shows/%d", id)
		sh, err := h.Store.Show(ctx, id)
		if err != nil {
			return fmt.Sprintf("show %d", id), href
		}
		return format.Date(sh.StartsAt, sh.TimeZone) + " " + format.Clock(sh.StartsAt, sh.TimeZone) +
			" (" + sh.MovieTitle + ") on " + sh.ScreenName, href
	}
	out := make([]adminview.RuntimeClash, 0, len(e.Overlaps))
	for _, o := range e.Overlaps {
		var rc adminview.RuntimeClash
		rc.Show, rc.ShowHref = name(o.ShowID)
		rc.Conflict, rc.ConflictHref = name(o.ConflictingShowID)
		rc.EndsAt = o.EndsAt.UTC().Format("15:04 UTC")
		if sh, err := h.Store.Show(ctx, o.ShowID); err == nil {
			rc.EndsAt = format.Clock(o.EndsAt, sh.TimeZone)
		}
		out = append(out, rc)
	}
	return out
}

// MoviePage shows a movie with its poster form (platform admins).
func (h *Handlers) MoviePage(c echo.Context) error {
	v := adminview.MovieView{}
	switch {
	case c.QueryParam("added") == "1":
		v.Notice = "Movie added to the catalogue."
	case c.QueryParam("poster") == "1":
		v.Notice = "Poster saved."
	case c.QueryParam("saved") == "1":
		v.Notice = "Details saved."
		moved, err1 := strconv.Atoi(c.QueryParam("moved"))
		by, err2 := strconv.Atoi(c.QueryParam("by"))
		if err1 == nil && err2 == nil && moved > 0 && by != 0 {
			how := "later"
			if by < 0 {
				how, by = "earlier", -by
			}
			v.Notice = fmt.Sprintf("Details saved. With the new running time, %s now %s %s %s.",
				format.Plural(moved, "upcoming show"), map[bool]string{true: "ends", false: "end"}[moved == 1], format.Plural(by, "minute"), how)
		}
	}
	return h.moviePage(c, http.StatusOK, v)
}

func (h *Handlers) moviePage(c echo.Context, status int, v adminview.MovieView) error {
	a := web.Actor(c)
	if !a.Platform() {
		return admin.ErrPlatformOnly
	}
	id, err := adminpage.PathID(c, "movie_id")
	if err != nil {
		return problem.NotFound("movie")
	}
	if v.Movie, err = h.Admin.Movie(c.Request().Context(), a, id); err != nil {
		return problem.Lookup("movie", err)
	}
	if !v.Edit.Any() {
		v.Edit = adminview.EditMovieForm(v.Movie)
	}
	v.MaxBytes = admin.MaxPosterBytes
	if v.Notice != "" && v.Movie.Poster != nil && c.QueryParam("poster") == "1" {
		v.Notice = fmt.Sprintf("Poster saved: %d × %d pixels.", v.Movie.Poster.Width, v.Movie.Poster.Height)
	}
	return web.Render(c, status, adminview.MoviePage(adminpage.Meta(h.Server, c, v.Movie.Title), adminpage.Nav(c, adminview.SectionMovies), v))
}

// UploadPosterSubmit sets a movie's poster from the form's file part: the
// bytes decide its type, as for the API.
func (h *Handlers) UploadPosterSubmit(c echo.Context) error {
	if !web.Actor(c).Platform() {
		return admin.ErrPlatformOnly
	}
	movieID, err := adminpage.PathID(c, "movie_id")
	if err != nil {
		return problem.NotFound("movie")
	}
	v := adminview.MovieView{Alt: c.FormValue("alt")}
	again := func(status int, field, message string) error {
		v.Add(field, message)
		return h.moviePage(c, status, v)
	}
	fh, err := c.FormFile("poster")
	if err != nil || fh.Size == 0 {
		return again(http.StatusUnprocessableEntity, "poster", "Choose an image file to upload.")
	}
	// However large the file, the form was read whole (web.PosterFormRoute):
	// one too large is told here, with the rest of the form kept.
	if fh.Size > admin.MaxPosterBytes {
		return again(http.StatusRequestEntityTooLarge, "poster", tooLarge(fh.Size))
	}
	file, err := fh.Open()
	if err != nil {
		return fmt.Errorf("open the poster part: %w", err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, admin.MaxPosterBytes+1))
	if err != nil {
		return fmt.Errorf("read the poster part: %w", err)
	}
	_, err = h.Admin.SetPoster(c.Request().Context(), web.Actor(c), movieID, data, strings.TrimSpace(v.Alt))
	var (
		bad  *catalog.FieldError
		size *admin.PosterSizeError
	)
	switch {
	case errors.As(err, &size):
		return again(http.StatusUnprocessableEntity, "poster", size.Message)
	case errors.Is(err, admin.ErrPosterTooLarge):
		return again(http.StatusRequestEntityTooLarge, "poster", tooLarge(int64(len(data))))
	case errors.Is(err, admin.ErrUnsupportedImage):
		return again(http.StatusUnsupportedMediaType, "poster",
			"This file is not a PNG, JPEG or WebP image. Choose an image in one of these types.")
	case errors.Is(err, admin.ErrInvalidImage):
		return again(http.StatusUnprocessableEntity, "poster",
			"This image is damaged or too large to read. Export it again and upload it once more.")
	case errors.As(err, &bad):
		return again(http.StatusUnprocessableEntity, bad.Field, problem.Sentence(bad.Message))
	case err != nil:
		return problem.Lookup("movie", err)
	}
	return web.SeeOther(c, fmt.Sprintf("/admin/movies/%d?poster=1", movieID))
}

func tooLarge(size int64) string {
	return fmt.Sprintf("This image is %.1f MiB: a poster is at most %d MiB. Choose a smaller image.", float64(size)/(1<<20), admin.MaxPosterBytes>>20)
}
