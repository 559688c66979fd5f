"""Small source templates, one per supported language, for anchoring and resolution tests.

Each renders a file with a `helper` function and the anchored function, whose name, numeric
constant, message literal and comment can be varied, with room for code above it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    language: str
    ext: str
    prelude: str
    helper: str
    target: str  # with {name} {num} {msg} {comment} {sp} {param}
    extra: str  # a function to insert above (shifts lines)
    wrap: str = "{body}"  # Java needs a class around its methods: {cls} {body}
    scope: str = ""  # qualifier of the target's name ("Calc." in Java)

    def render(
        self,
        name: str = "compute",
        num: int = 2,
        msg: str = "done",
        comment: str = "sum the helped items",
        sp: str = "",
        param: str = "items",
        above: bool = False,
        with_target: bool = True,
        cls: str = "Calc",
    ) -> str:
        body = (self.extra if above else "") + self.helper
        if with_target:
            body += self.target.format(
                name=name, num=num, msg=msg, comment=comment, sp=sp, param=param
            )
        return self.prelude + self.wrap.format(cls=cls, body=body)

    def only_target(self, name: str = "compute", cls: str = "Other") -> str:
        target = self.target.format(
            name=name, num=2, msg="done", comment="sum the helped items", sp="", param="items"
        )
        return self.prelude + self.wrap.format(cls=cls, body=target)

    def symbol(self, name: str = "compute", cls: str = "Calc") -> str:
        return f"{cls}.{name}" if self.scope else name


_C_TARGET = """
int {name}(const int *{param}, int n) {{
    /* {comment} */
    int total = 0;{sp}
    for (int i = 0; i < n; i++) {{
        total += helper({param}[i]) * {num};
    }}
    printf("{msg}\\n");
    return total;
}}
"""

_JS_TARGET = """
function {name}({param}) {{
  // {comment}
  let total = 0;{sp}
  for (const item of {param}) {{
    total += helper(item) * {num};
  }}
  console.log("{msg}");
  return total;
}}
"""

_TS_TARGET = """
export function {name}({param}: number[]): number {{
  // {comment}
  let total = 0;{sp}
  for (const item of {param}) {{
    total += helper(item) * {num};
  }}
  console.log("{msg}");
  return total;
}}
"""

SAMPLES: dict[str, Sample] = {
    "python": Sample(
        "python",
        ".py",
        "import sys\n",
        "\n\ndef helper(x):\n    return x + 1\n",
        '\n\ndef {name}({param}):\n    # {comment}\n    total = 0{sp}\n    for item in {param}:\n'
        '        total += helper(item) * {num}\n    print("{msg}")\n    return total\n',
        "\n\ndef extra(a, b):\n    return a * b\n",
    ),
    "javascript": Sample(
        "javascript", ".js", "'use strict';\n", "\nfunction helper(x) {\n  return x + 1;\n}\n",
        _JS_TARGET, "\nfunction extra(a, b) {\n  return a * b;\n}\n",
    ),
    "typescript": Sample(
        "typescript", ".ts", "import { x } from './x';\n",
        "\nfunction helper(x: number): number {\n  return x + 1;\n}\n",
        _TS_TARGET, "\nfunction extra(a: number, b: number): number {\n  return a * b;\n}\n",
    ),
    "tsx": Sample(
        "tsx", ".tsx", "import React from 'react';\n",
        "\nconst helper = (x: number): number => {\n  return x + 1;\n};\n",
        _TS_TARGET, "\nexport const View = () => <div>{1}</div>;\n",
    ),
    "go": Sample(
        "go", ".go", 'package calc\n\nimport "fmt"\n',
        "\nfunc helper(x int) int {\n\treturn x + 1\n}\n",
        "\nfunc {name}({param} []int) int {{\n\t// {comment}\n\ttotal := 0{sp}\n"
        "\tfor _, item := range {param} {{\n\t\ttotal += helper(item) * {num}\n\t}}\n"
        '\tfmt.Println("{msg}")\n\treturn total\n}}\n',
        "\nfunc extra(a, b int) int {\n\treturn a * b\n}\n",
    ),
    "rust": Sample(
        "rust", ".rs", "use std::fmt;\n", "\nfn helper(x: i64) -> i64 {\n    x + 1\n}\n",
        "\nfn {name}({param}: &[i64]) -> i64 {{\n    // {comment}\n    let mut total = 0;{sp}\n"
        "    for item in {param} {{\n        total += helper(*item) * {num};\n    }}\n"
        '    let label = "{msg}";\n    println!("{{}}", label);\n    total\n}}\n',
        "\nfn extra(a: i64, b: i64) -> i64 {\n    a * b\n}\n",
    ),
    "java": Sample(
        "java", ".java", "package calc;\n\n",
        "\n    static int helper(int x) {\n        return x + 1;\n    }\n",
        "\n    static int {name}(int[] {param}) {{\n        // {comment}\n        int total = 0;{sp}\n"
        "        for (int item : {param}) {{\n            total += helper(item) * {num};\n        }}\n"
        '        System.out.println("{msg}");\n        return total;\n    }}\n',
        "\n    static int extra(int a, int b) {\n        return a * b;\n    }\n",
        wrap="public class {cls} {{{body}}}\n",
        scope="class",
    ),
    "c": Sample(
        "c", ".c", "#include <stdio.h>\n", "\nstatic int helper(int x) {\n    return x + 1;\n}\n",
        _C_TARGET, "\nstatic int extra(int a, int b) {\n    return a * b;\n}\n",
    ),
    "cpp": Sample(
        "cpp", ".cpp", "#include <cstdio>\n", "\nstatic int helper(int x) {\n    return x + 1;\n}\n",
        _C_TARGET, "\ntemplate <typename T> T extra(T a, T b) {\n    return a * b;\n}\n",
    ),
}  # fmt: skip
