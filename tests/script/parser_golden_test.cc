// Golden AST dumps for every statement and expression form.
#include <gtest/gtest.h>

#include "script/util.h"
#include "test_names.h"

namespace oxs::script {
namespace {

using testing::dump_of;

struct Golden {
  const char* source;
  const char* dump;
};

// Each source is a complete file; the dump is the expected tree.
const Golden kGoldens[] = {
    {R"py(import a.b.c as d, e
)py",
     R"d((module
  (import (as a.b.c d) e))
)d"},
    {R"py(from ..x.y import (a as b, c,)
)py",
     R"d((module
  (from ..x.y (as a b) c))
)d"},
    {R"py(from . import z
)py",
     R"d((module
  (from . z))
)d"},
    {R"py(from ...pkg import *
)py",
     R"d((module
  (from ...pkg *))
)d"},
    {R"py(x = y = 1
)py",
     R"d((module
  (= x y 1))
)d"},
    {R"py(a, *b = c
)py",
     R"d((module
  (= (tuple a (* b)) c))
)d"},
    {R"py([a, b] = c, d
)py",
     R"d((module
  (= (list a b) (tuple c d)))
)d"},
    {R"py(x: int = 5
)py",
     R"d((module
  (annassign x int 5))
)d"},
    {R"py(self.w: FLOAT[3]
)py",
     R"d((module
  (annassign (. self w) (sub FLOAT 3)))
)d"},
    {R"py(x += 1
)py",
     R"d((module
  (+= x 1))
)d"},
    {R"py(x //= 2
)py",
     R"d((module
  (//= x 2))
)d"},
    {R"py(x **= 3
)py",
     R"d((module
  (**= x 3))
)d"},
    {R"py(x @= w
)py",
     R"d((module
  (@= x w))
)d"},
    {R"py(x >>= 1
)py",
     R"d((module
  (>>= x 1))
)d"},
    {R"py(x <<= 1
)py",
     R"d((module
  (<<= x 1))
)d"},
    {R"py(x ^= 1
)py",
     R"d((module
  (^= x 1))
)d"},
    {R"py(x |= 1
)py",
     R"d((module
  (|= x 1))
)d"},
    {R"py(x &= 1
)py",
     R"d((module
  (&= x 1))
)d"},
    {R"py(x %= 1
)py",
     R"d((module
  (%= x 1))
)d"},
    {R"py(x -= 1
)py",
     R"d((module
  (-= x 1))
)d"},
    {R"py(x /= 1
)py",
     R"d((module
  (/= x 1))
)d"},
    {R"py(x *= 1
)py",
     R"d((module
  (*= x 1))
)d"},
    {R"py(del a, b[0], c.d
)py",
     R"d((module
  (del a (sub b 0) (. c d)))
)d"},
    {R"py(global g, h
)py",
     R"d((module
  (global g h))
)d"},
    {R"py(nonlocal n
)py",
     R"d((module
  (nonlocal n))
)d"},
    {R"py(assert x > 0, "message"
)py",
     R"d((module
  (assert (compare x > 0) "message"))
)d"},
    {R"py(raise ValueError("x") from e
)py",
     R"d((module
  (raise (call ValueError "x") :from e))
)d"},
    {R"py(raise
)py",
     R"d((module
  (raise))
)d"},
    {R"py(pass; break; continue
)py",
     R"d((module
  (pass)
  (break)
  (continue))
)d"},
    {R"py(for i, j in zip(a, b):
    pass
else:
    pass
)py",
     R"d((module
  (for (tuple i j) (call zip a b)
    (pass)
  :else
    (pass)))
)d"},
    {R"py(while x < 3:
    x = x + 1
else:
    y = 2
)py",
     R"d((module
  (while (compare x < 3)
    (= x (+ x 1))
  :else
    (= y 2)))
)d"},
    {R"py(try:
    a()
except (A, B) as e:
    b()
except:
    pass
else:
    c()
finally:
    d()
)py",
     R"d((module
  (try
    (expr (call a))
  :except (tuple A B) :as e
    (expr (call b))
  :except
    (pass)
  :else
    (expr (call c))
  :finally
    (expr (call d))))
)d"},
    {R"py(with open(f) as g, h:
    pass
)py",
     R"d((module
  (with (as (call open f) g) h
    (pass)))
)d"},
    {R"py(class C(Base, metaclass=M):
    """Doc."""
    x = 1
)py",
     R"d((module
  (class C (bases Base (kw metaclass M)) :doc "Doc."
    (= x 1)))
)d"},
    {R"py(def f(a, /, b, *args, c, d=1, **kw) -> T:
    return
)py",
     R"d((module
  (def f (params (a :posonly) b *args (c :kwonly) (d :kwonly :default 1) **kw) :returns T
    (return)))
)d"},
    {R"py(def f(a, *, b):
    yield a
    yield from b
)py",
     R"d((module
  (def f (params a (b :kwonly))
    (expr (yield a))
    (expr (yield-from b))))
)d"},
    {R"py(async def f():
    await g()
)py",
     R"d((module
  (async-def f (params)
    (expr (await (call g)))))
)d"},
    {R"py(@a.b(1)
@c
def f(): pass
)py",
     R"d((module
  (def f (params) :decorators ((call (. a b) 1) c)
    (pass)))
)d"},
    {R"py(x = lambda a, b=1, *c: a + b
)py",
     R"d((module
  (= x (lambda (params a (b :default 1) *c) (+ a b))))
)d"},
    {R"py(y = [i * 2 for i in range(3) if i if i > 1]
)py",
     R"d((module
  (= y (listcomp (* i 2) (for i (call range 3) (if i) (if (compare i > 1))))))
)d"},
    {R"py(y = {k: v for k, v in d.items()}
)py",
     R"d((module
  (= y (dictcomp k v (for (tuple k v) (call (. d items))))))
)d"},
    {R"py(y = {i for i in s}
)py",
     R"d((module
  (= y (setcomp i (for i s))))
)d"},
    {R"py(y = (i for i in s)
)py",
     R"d((module
  (= y (genexp i (for i s))))
)d"},
    {R"py(f(*args, **kwargs, k=1)
)py",
     R"d((module
  (expr (call f (* args) (kw ** kwargs) (kw k 1))))
)d"},
    {R"py(f(x for x in y)
)py",
     R"d((module
  (expr (call f (genexp x (for x y)))))
)d"},
    {R"py(y = {"a": 1, **d}
)py",
     R"d((module
  (= y (dict ("a" 1) (** d))))
)d"},
    {R"py(y = {1, 2, *s}
)py",
     R"d((module
  (= y (set 1 2 (* s))))
)d"},
    {R"py(y = ()
)py",
     R"d((module
  (= y (tuple)))
)d"},
    {R"py(y = (1,)
)py",
     R"d((module
  (= y (tuple 1)))
)d"},
    {R"py(y = (1)
)py",
     R"d((module
  (= y 1))
)d"},
    {R"py(y = []
)py",
     R"d((module
  (= y (list)))
)d"},
    {R"py(y = {}
)py",
     R"d((module
  (= y (dict)))
)d"},
    {R"py(if (n := len(a)) > 10: pass
)py",
     R"d((module
  (if (compare (:= n (call len a)) > 10)
    (pass)))
)d"},
    {R"py(x = b'ab' b"c"
)py",
     R"d((module
  (= x b"abc"))
)d"},
    {R"py(x = 'a' "b" '''c'''
)py",
     R"d((module
  (= x "abc"))
)d"},
    {R"py(x = 1.5e3 + 0x1F + True + None + ...
)py",
     R"d((module
  (= x (+ (+ (+ (+ 1500.0 31) True) None) ...)))
)d"},
    {R"py(x = -9223372036854775808
)py",
     R"d((module
  (= x -9223372036854775808))
)d"},
    {R"py(x = a[::2, 1:, :]
)py",
     R"d((module
  (= x (sub a (tuple (slice _ _ 2) (slice 1 _ _) (slice _ _ _)))))
)d"},
    {R"py(x = not a == b
)py",
     R"d((module
  (= x (not (compare a == b))))
)d"},
};

class ParserGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(ParserGolden, Dump) {
  EXPECT_EQ(dump_of(GetParam().source), GetParam().dump);
}

void PrintTo(const Golden& g, std::ostream* os) {
  *os << "source:\n" << g.source;
}

INSTANTIATE_TEST_SUITE_P(Constructs, ParserGolden, ::testing::ValuesIn(kGoldens),
                         [](const auto& info) {
                           return oxs::testing::readable_test_name(info.param.source);
                         });

}  // namespace
}  // namespace oxs::script
