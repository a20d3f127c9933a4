package treesitter

import (
	"fmt"
	"strings"
	"testing"
)

func names(as []Anchor) string {
	var s []string
	for _, a := range as {
		s = append(s, fmt.Sprintf("%s %s %d-%d", a.Kind, a.Name, a.Start, a.End))
	}
	return strings.Join(s, "\n")
}

var samples = []struct {
	path, src string
	want      []string
}{
	{"server.go", `package server

// Server serves.
type Server struct {
	mux int
}

// Handle registers routes.
func (s *Server) Handle(path string) error {
	helper := func() {}
	helper()
	return nil
}

func New() *Server { return &Server{} }

type Store interface{ Get() }
`, []string{"struct Server 3-6", "method Server.Handle 8-13", "function New 15-15", "interface Store 17-17"}},
	{"app.py", `class Client:
    def connect(self, host):
        def retry():
            pass
        return retry

    @staticmethod
    def build():
        pass

def main():
    pass
`, []string{"class Client 1-9", "method Client.connect 2-5", "function Client.connect.retry 3-4", "method Client.build 8-9", "function main 11-12"}},
	{"web.js", `export class Router {
  route(path) {
    return path;
  }
}
const handler = (req) => {
  return req;
};
function* gen() {}
`, []string{"class Router 1-5", "method Router.route 2-4", "function handler 6-8", "function gen 9-9"}},
	{"api.ts", `interface Repo { find(id: string): Item }
type ID = string;
export class Service {
  private repo: Repo;
  async load(id: ID): Promise<void> {
  }
}
enum Color { Red }
`, []string{"interface Repo 1-1", "method Repo.find 1-1", "type ID 2-2", "class Service 3-7", "method Service.load 5-6", "enum Color 8-8"}},
	{"view.tsx", `export function App() {
  return <div>hi</div>;
}
`, []string{"function App 1-3"}},
	{"lib.rs", `pub struct MqttClient { host: String }

impl MqttClient {
    pub fn connect(&self) -> bool {
        true
    }
}

trait Greet { fn hi(&self); }

fn main() {}
`, []string{"struct MqttClient 1-1", "method MqttClient::connect 4-6", "trait Greet 9-9", "method Greet::hi 9-9", "function main 11-11"}},
	{"Main.java", `public class Main {
    public Main() {}
    public static void main(String[] args) {
        System.out.println("hi");
    }
    interface Inner { void run(); }
}
`, []string{"class Main 1-7", "constructor Main.Main 2-2", "method Main.main 3-5", "interface Main.Inner 6-6", "method Main.Inner.run 6-6"}},
	{"util.c", `struct point { int x; };

static int add(int a, int b) {
    return a + b;
}

int *alloc(void) { return 0; }
`, []string{"struct point 1-1", "function add 3-5", "function alloc 7-7"}},
	{"client.cpp", `namespace net {
class Client {
public:
    void send() {}
};
}

void net::Client::connect(int port) {
}
`, []string{"namespace net 1-6", "class net::Client 2-5", "method net::Client::send 4-4", "method net::Client::connect 8-9"}},
}

func TestOutlineEveryLanguage(t *testing.T) {
	for _, s := range samples {
		t.Run(s.path, func(t *testing.T) {
			got := names(Outline(s.path, []byte(s.src)))
			if want := strings.Join(s.want, "\n"); got != want {
				t.Errorf("outline of %s:\n%s\nwant:\n%s", s.path, got, want)
			}
		})
	}
}

func TestSignatures(t *testing.T) {
	as := Outline("server.go", []byte(samples[0].src))
	if as[1].Signature != "func (s *Server) Handle(path string) error" {
		t.Errorf("signature = %q", as[1].Signature)
	}
}

func TestUnsupportedAndBrokenFiles(t *testing.T) {
	if Outline("README.md", []byte("# hi")) != nil {
		t.Error("markdown has no anchors")
	}
	got := Outline("broken.go", []byte("package x\nfunc Good() {}\nfunc Bad( {\n"))
	if len(got) == 0 || got[0].Name != "Good" {
		t.Errorf("syntax error lost the good function: %v", got)
	}
}

func TestFindAndCovering(t *testing.T) {
	cpp := Outline("client.cpp", []byte(samples[8].src))
	for _, tc := range []struct{ q, want string }{
		{"net::Client::send", "net::Client::send"},
		{"Client::send", "net::Client::send"},
		{"Client.send", "net::Client::send"},
		{"send", "net::Client::send"},
		{"SEND", "net::Client::send"},
	} {
		got := Find(cpp, tc.q)
		if len(got) != 1 || got[0].Name != tc.want {
			t.Errorf("Find(%q) = %v, want %s", tc.q, names(got), tc.want)
		}
	}
	if got := Find(cpp, "nothing"); got != nil {
		t.Errorf("Find(nothing) = %v", got)
	}
	py := Outline("app.py", []byte(samples[1].src))
	if got := names(Covering(py, 4, 4)); got != "function Client.connect.retry 3-4" {
		t.Errorf("Covering nested = %s", got)
	}
	if got := names(Covering(py, 5, 8)); got != "method Client.connect 2-5\nmethod Client.build 8-9" {
		t.Errorf("Covering two methods = %s", got)
	}
	if got := Covering(py, 10, 10); len(got) != 0 {
		t.Errorf("Covering a blank line = %v", names(got))
	}
}
