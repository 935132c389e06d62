package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// DownloadCSV answers the CSV file that file makes, as an attachment under
// the name it gives.
func DownloadCSV(c echo.Context, file func() (data []byte, name string, err error)) error {
	data, name, err := file()
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", data)
}
