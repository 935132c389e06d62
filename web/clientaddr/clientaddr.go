// Package clientaddr says where a request comes from: the client's address,
// which X-Forwarded-For may name only when the request came through a proxy
// of ours, and the network the rate limits and the held-seat caps count by.
package clientaddr

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// Key keys a caller, for a rate limit, by the network its requests come
// from.
func Key(c echo.Context) string { return "ip:" + Net(c).String() }

// Net is the network a caller's requests come from, the unit the rate
// limits and the held-seat caps count by: its IPv4 address, or the /64 of
// its IPv6 address (one subscriber's: a host may use any address in it).
// An address that cannot be read counts as 0.0.0.0, so all such callers
// share one allowance rather than each having its own.
func Net(c echo.Context) netip.Prefix {
	addr, err := netip.ParseAddr(c.RealIP())
	if err != nil {
		return netip.PrefixFrom(netip.IPv4Unspecified(), 32)
	}
	addr = addr.Unmap().WithZone("")
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits) // bits fit the address
	return p
}

// Extractor finds a request's client address, Echo's RealIP. With no
// trusted proxies it is the TCP peer's, whatever the headers say.
// Otherwise X-Forwarded-For is believed only when the peer is in a trusted
// network, and read from the right, each proxy appending the address it
// heard from: the client is the first address that is not a trusted proxy.
// Nothing is trusted for being loopback or private: a sidecar, a
// neighbouring container or a client on our own network can forge the
// header as well. X-Real-IP, which carries one address with no chain to
// check, is never read.
func Extractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		p = p.Masked()
		opts = append(opts, echo.TrustIPRange(&net.IPNet{
			IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen()),
		}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// FromProxy reports whether a request's TCP peer is in a trusted network:
// a proxy of ours, whose X-Forwarded-For Extractor believes (and whose
// X-Request-Id the access log keeps).
func FromProxy(trusted []netip.Prefix) func(*http.Request) bool {
	return func(r *http.Request) bool {
		peer, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil {
			return false
		}
		addr := peer.Addr().Unmap().WithZone("")
		for _, p := range trusted {
			if p.Contains(addr) {
				return true
			}
		}
		return false
	}
}
