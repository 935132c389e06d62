package sales

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river/rivertype"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// jobsShown is how many jobs of a state the page lists.
const jobsShown = 100

// jobStateLabels name each state on the page.
var jobStateLabels = map[rivertype.JobState]string{
	rivertype.JobStateRetryable: "Retrying", rivertype.JobStateDiscarded: "Gave up", rivertype.JobStateRunning: "Running",
	rivertype.JobStateAvailable: "Queued", rivertype.JobStateScheduled: "Scheduled", rivertype.JobStateCompleted: "Done",
	rivertype.JobStateCancelled: "Cancelled",
}

// JobsPage lists the background jobs of one state (?state=, retryable
// by default), for platform admins.
func (h *Handlers) JobsPage(c echo.Context) error {
	state := rivertype.JobState(c.QueryParam("state"))
	if state == "" {
		state = rivertype.JobStateRetryable
	}
	jobs, err := h.Admin.Jobs(c.Request().Context(), web.Actor(c), state, jobsShown)
	if errors.Is(err, admin.ErrUnknownJobState) {
		return problem.NotFound("job state")
	}
	if err != nil {
		return err
	}
	v := adminview.JobsView{Empty: "No job is " + strings.ToLower(jobStateLabels[state]) + "."}
	for _, st := range admin.JobStates {
		v.States = append(v.States, adminview.JobStateTab{
			State: string(st), Label: jobStateLabels[st], Href: "/admin/jobs?state=" + string(st),
			Count: jobs.Counts[st], Current: st == state,
		})
	}
	for _, j := range jobs.List {
		v.Rows = append(v.Rows, jobRow(j))
	}
	return web.Render(c, http.StatusOK, adminview.JobsPage(adminpage.Meta(h.Server, c, "Background jobs"), adminpage.Nav(c, adminview.SectionJobs), v))
}

func jobRow(j *rivertype.JobRow) adminview.JobRow {
	at := j.ScheduledAt
	if j.FinalizedAt != nil {
		at = *j.FinalizedAt
	}
	r := adminview.JobRow{
		ID: strconv.FormatInt(j.ID, 10), Kind: j.Kind, Args: string(j.EncodedArgs), Queue: j.Queue,
		Attempts: fmt.Sprintf("Attempt %d of %d", j.Attempt, j.MaxAttempts),
		When:     format.When(at, "UTC"), WhenISO: at.UTC().Format(time.RFC3339),
	}
	for i := len(j.Errors) - 1; i >= 0; i-- {
		e := j.Errors[i]
		r.Errors = append(r.Errors, fmt.Sprintf("attempt %d, %s: %s", e.Attempt, format.When(e.At, "UTC"), e.Error))
	}
	return r
}
