"""`tether history`: cases the twenty-eighth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 28`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

FALLBACK_BODY = (
    "    let ty = &input.ident;\n"
    "    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();\n"
    "    let error = error.to_compile_error();\n"
    "    quote! {\n"
    "        #error\n"
    "        impl #impl_generics std::error::Error for #ty #ty_generics #where_clause {}\n"
    "    }\n"
)


def test_a_module_declared_under_a_functions_name_does_not_keep_it(tmp_path: Path) -> None:
    """thiserror's 88a4603 moved expand.rs's `fn fallback` into the new fallback.rs as
    `pub(crate) fn expand`, and declared `mod fallback;` in lib.rs: a module of that name is
    not the function kept under its name, and the function moved."""
    r = Repo(tmp_path / "r")
    r.write(
        "impl/src/lib.rs",
        "mod expand;\n\npub fn derive(input: Input) -> TokenStream {\n"
        "    expand::derive(input)\n}\n",
    )
    r.write(
        "impl/src/expand.rs",
        "pub fn derive(input: &DeriveInput) -> TokenStream {\n    quote!()\n}\n\n"
        "fn fallback(input: &DeriveInput, error: syn::Error) -> TokenStream {\n"
        + FALLBACK_BODY
        + "}\n",
    )
    born = r.commit("fallback expansion")
    r.write(
        "impl/src/lib.rs",
        "mod expand;\nmod fallback;\n\npub fn derive(input: Input) -> TokenStream {\n"
        "    expand::derive(input)\n}\n",
    )
    r.write(
        "impl/src/expand.rs",
        "pub fn derive(input: &DeriveInput) -> TokenStream {\n    fallback::expand(input)\n}\n",
    )
    r.write(
        "impl/src/fallback.rs",
        "pub(crate) fn expand(input: &DeriveInput, error: syn::Error) -> TokenStream {\n"
        + FALLBACK_BODY
        + "}\n",
    )
    moved = r.commit("Move fallback expansion to separate module")
    history = symbol_history(r.path, "impl/src/fallback.rs", "expand")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert {"move", "rename"} <= set(history.commits[0].changes)
