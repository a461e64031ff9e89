//! Typed dialect types: a dialect defined outside `tb-ir` (here, a small `demo` dialect in
//! this test) registers its types, and the parser, printer, interning and typed accessors
//! treat them as values of that dialect.

use tb_ir::dialect_type::TypedType;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation, type_to_string};
use tb_ir::{Context, OpId, TypeKind};

/// `!demo.pointer<N>`: a pointer into address space N (0 to 7).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pointer {
    address_space: u8,
}

impl TypedType for Pointer {
    const DIALECT: &'static str = "demo";
    const MNEMONIC: &'static str = "pointer";

    fn parse(body: &str) -> Result<Self, String> {
        let inner = body
            .trim()
            .strip_prefix('<')
            .and_then(|b| b.strip_suffix('>'))
            .ok_or("expected '<address space>'")?;
        let address_space: u8 = inner
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not an address space", inner.trim()))?;
        if address_space > 7 {
            return Err(format!(
                "address space {address_space} is out of range 0..=7"
            ));
        }
        Ok(Pointer { address_space })
    }

    fn print(&self, out: &mut String) {
        out.push_str(&format!("<{}>", self.address_space));
    }
}

/// `!demo.token`: a type without parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Token;

impl TypedType for Token {
    const DIALECT: &'static str = "demo";
    const MNEMONIC: &'static str = "token";

    fn parse(body: &str) -> Result<Self, String> {
        if body.trim().is_empty() {
            Ok(Token)
        } else {
            Err("takes no parameters".into())
        }
    }

    fn print(&self, _: &mut String) {}
}

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_type::<Pointer>();
    ctx.register_type::<Token>();
    ctx.allow_unregistered_dialects = true;
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> Result<OpId, String> {
    parse_source(ctx, text, "input.mlir", &ParseOptions::default()).map_err(|d| d.message)
}

fn print(ctx: &Context, op: OpId) -> String {
    print_operation(ctx, op, PrintOptions::default())
}

#[test]
fn a_registered_type_parses_to_its_value() {
    let mut ctx = context();
    let module = parse(&mut ctx, "\"test.use\"() : () -> !demo.pointer< 3 >").unwrap();
    let mut user = None;
    ctx.walk_nested(module, &mut |op| {
        if ctx.op_name(op) == "test.use" {
            user = Some(op);
        }
    });
    let user = user.expect("the parsed module holds test.use");
    let ty = ctx.value_type(ctx.op(user).results[0]);
    assert_eq!(
        ctx.typed_type::<Pointer>(ty),
        Some(&Pointer { address_space: 3 })
    );
    assert!(matches!(ctx.type_kind(ty), TypeKind::Dialect(_)));
    assert_eq!(ctx.typed_type::<Token>(ty), None);
}

#[test]
fn a_registered_type_prints_in_canonical_form() {
    let mut ctx = context();
    let ty = ctx.typed_type_of(Pointer { address_space: 5 });
    assert_eq!(type_to_string(&ctx, ty), "!demo.pointer<5>");
    let token = ctx.typed_type_of(Token);
    assert_eq!(type_to_string(&ctx, token), "!demo.token");
}

#[test]
fn equal_values_intern_to_one_type() {
    let mut ctx = context();
    let a = ctx.typed_type_of(Pointer { address_space: 1 });
    let b = ctx.typed_type_of(Pointer { address_space: 1 });
    let c = ctx.typed_type_of(Pointer { address_space: 2 });
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_module_using_typed_types_round_trips() {
    let mut ctx = context();
    let text = "\"test.def\"() {signature = (!demo.pointer<1>, tensor<4x!demo.token>) -> !demo.token} : () -> ()\n";
    let module = parse(&mut ctx, text).unwrap();
    let printed = print(&ctx, module);
    assert!(
        printed.contains("(!demo.pointer<1>, tensor<4x!demo.token>) -> !demo.token"),
        "{printed}"
    );
    let mut again = context();
    let reparsed = parse(&mut again, &printed).unwrap();
    assert_eq!(print(&again, reparsed), printed);
}

#[test]
fn a_malformed_body_is_a_located_error() {
    let mut ctx = context();
    let err = parse(&mut ctx, "\"test.use\"() : () -> !demo.pointer<9>").unwrap_err();
    assert!(err.contains("address space 9 is out of range"), "{err}");
    let err = parse(&mut ctx, "\"test.use\"() : () -> !demo.token<1>").unwrap_err();
    assert!(err.contains("takes no parameters"), "{err}");
}

#[test]
fn an_unknown_mnemonic_of_a_dialect_with_types_is_an_error() {
    let mut ctx = context();
    let err = parse(&mut ctx, "\"test.use\"() : () -> !demo.stream").unwrap_err();
    assert!(
        err.contains("dialect 'demo' has no type named 'stream'"),
        "{err}"
    );
}

#[test]
fn types_of_other_dialects_stay_opaque() {
    let mut ctx = context();
    let module = parse(&mut ctx, "\"other.use\"() : () -> !other.thing<1, 2>").unwrap();
    let printed = print(&ctx, module);
    assert!(printed.contains("!other.thing<1, 2>"), "{printed}");
}
