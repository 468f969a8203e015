/* tests/io/test_udpout.c - io/udpout.h without sockets: vd_udp_same_addr, the check the motion
 * feed applies to every datagram it reads (app/motionlink.c: only the platform may answer a
 * unicast feed), on addresses built by vd_udp_parse_any. Every expectation exact:
 * - IPv4: the address, and with port the port too;
 * - IPv6: the 16 bytes of the address and the port; the scope id and the flow label are not
 *   compared (the header's "IPv6 without its scope");
 * - IPv4-mapped ([::ffff:a.b.c.d]): an IPv6 address as any other, equal to the same mapped
 *   address (what an IPv6 socket fed on a mapped address reports for the platform);
 * - mixed families: never the same, a mapped address and its IPv4 one neither (one socket
 *   reports one family: an IPv4 socket no IPv6 sender, an IPv6 one an IPv4 sender mapped);
 * - a family neither IPv4 nor IPv6: never the same, not even as itself. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <string.h>
#include <sys/un.h>

#include "check.h"
#include "io/udpout.h"

/* text ("a.b.c.d:port", "[v6]:port") as an address; a parse failure is a failed check */
static struct sockaddr_storage addr(const char *text)
{
    struct sockaddr_storage a;
    socklen_t len = 0;

    memset(&a, 0, sizeof(a));
    CHECK(vd_udp_parse_any(text, &a, &len) == 0, "%s parsed", text);
    return a;
}

/* vd_udp_same_addr(a, b, port) and (b, a, port) are both want */
static void same(const char *a, const char *b, bool port, bool want)
{
    const struct sockaddr_storage x = addr(a), y = addr(b);

    CHECK(vd_udp_same_addr(&x, &y, port) == want && vd_udp_same_addr(&y, &x, port) == want,
          "%s and %s, port %s: want %s", a, b, port ? "compared" : "not compared",
          want ? "the same" : "not the same");
}

static void t_ipv4(void)
{
    same("127.0.0.1:4950", "127.0.0.1:4950", true, true);
    same("127.0.0.1:4950", "127.0.0.1:4950", false, true);
    same("127.0.0.1:4950", "127.0.0.1:4951", true, false);
    same("127.0.0.1:4950", "127.0.0.1:4951", false, true);
    same("127.0.0.1:4950", "127.0.0.2:4950", false, false);
    same("10.0.0.5:4950", "10.0.0.50:4950", false, false);
    same("localhost:4950", "127.0.0.1:4950", true, true);
}

static void t_ipv6(void)
{
    same("[2001:db8::5]:4950", "[2001:db8::5]:4950", true, true);
    same("[2001:db8::5]:4950", "[2001:db8:0:0:0:0:0:5]:4950", true, true);
    same("[2001:db8::5]:4950", "[2001:db8::5]:4951", true, false);
    same("[2001:db8::5]:4950", "[2001:db8::5]:4951", false, true);
    same("[2001:db8::5]:4950", "[2001:db8::6]:4950", false, false);
    same("[::1]:4950", "[::]:4950", false, false);
    /* the scope id and the flow label are not compared */
    {
        struct sockaddr_storage x = addr("[fe80::1]:4950"), y = addr("[fe80::1]:4950");

        ((struct sockaddr_in6 *)&x)->sin6_scope_id = 2;
        ((struct sockaddr_in6 *)&y)->sin6_scope_id = 3;
        ((struct sockaddr_in6 *)&y)->sin6_flowinfo = htonl(0x12345);
        CHECK(vd_udp_same_addr(&x, &y, true) && vd_udp_same_addr(&y, &x, true),
              "fe80::1 on interfaces 2 and 3: the same");
    }
}

static void t_mapped(void)
{
    same("[::ffff:127.0.0.1]:4950", "[::ffff:127.0.0.1]:4950", true, true);
    same("[::ffff:127.0.0.1]:4950", "[::ffff:7f00:1]:4950", true, true);
    same("[::ffff:127.0.0.1]:4950", "[::ffff:127.0.0.1]:4951", true, false);
    same("[::ffff:127.0.0.1]:4950", "[::ffff:127.0.0.1]:4951", false, true);
    same("[::ffff:127.0.0.1]:4950", "[::ffff:127.0.0.2]:4950", false, false);
    /* the IPv4-compatible form (::a.b.c.d, deprecated) is another address */
    same("[::ffff:127.0.0.1]:4950", "[::127.0.0.1]:4950", false, false);
}

static void t_mixed(void)
{
    same("[::ffff:127.0.0.1]:4950", "127.0.0.1:4950", true, false);
    same("[::ffff:127.0.0.1]:4950", "127.0.0.1:4950", false, false);
    same("[::1]:4950", "127.0.0.1:4950", false, false);
    same("[::]:4950", "0.0.0.0:4950", false, false);
    /* an IPv6 address whose first four bytes are an IPv4 one's: still another family */
    same("[7f00:1::]:4950", "127.0.0.1:4950", false, false);
    /* neither IPv4 nor IPv6: not the same, as another family or as itself */
    {
        struct sockaddr_storage u, v = addr("127.0.0.1:4950"), z;

        memset(&u, 0, sizeof(u));
        ((struct sockaddr_un *)&u)->sun_family = AF_UNIX;
        strcpy(((struct sockaddr_un *)&u)->sun_path, "/tmp/x");
        memset(&z, 0, sizeof(z)); /* AF_UNSPEC: what an unread sender is */
        CHECK(!vd_udp_same_addr(&u, &u, false) && !vd_udp_same_addr(&u, &v, false) &&
                  !vd_udp_same_addr(&v, &u, false) && !vd_udp_same_addr(&z, &z, false) &&
                  !vd_udp_same_addr(&z, &v, false) && !vd_udp_same_addr(&v, &z, false),
              "AF_UNIX and AF_UNSPEC: never the same");
    }
}

int main(void)
{
    t_ipv4();
    t_ipv6();
    t_mapped();
    t_mixed();
    return vt_report("test_udpout");
}
