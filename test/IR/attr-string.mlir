// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// String attributes and their escapes. The printer escapes '"' and
// non-printable bytes as two hex digits and '\' as '\\'.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.plain"() {a = "plain", b = "", c = "with spaces and punctuation: !#$%&'()*+,-./:;<=>?@[]^_`{|}~"} : () -> ()
"unreg.plain"() {a = "plain", b = "", c = "with spaces and punctuation: !#$%&'()*+,-./:;<=>?@[]^_`{|}~"} : () -> ()

// CHECK-LABEL: "unreg.escapes"() {backslash = "a\\b", newline = "line1\0Aline2", quote = "say \22hi\22", tab = "col1\09col2"} : () -> ()
"unreg.escapes"() {quote = "say \"hi\"", backslash = "a\\b", newline = "line1\nline2", tab = "col1\tcol2"} : () -> ()

// CHECK-LABEL: "unreg.hex_escapes"() {ff = "\FF", high = "\80\C0", lower = "\7F\0A", mixed = "ABC", nul = "\00"} : () -> ()
"unreg.hex_escapes"() {nul = "\00", ff = "\FF", lower = "\7f\0a", mixed = "\41\42\43", high = "\80\C0"} : () -> ()

// UTF-8 text is printed byte by byte as hex escapes.
// CHECK-LABEL: "unreg.unicode"() {emoji = "\F0\9F\98\80", latin = "caf\C3\A9", raw = "caf\C3\A9", snowman = "\E2\98\83"} : () -> ()
"unreg.unicode"() {latin = "caf\C3\A9", raw = "café", snowman = "☃", emoji = "😀"} : () -> ()

// Strings with a type.
// CHECK-LABEL: "unreg.typed"() {a = "typed" : i32, b = "", c = "x" : !unreg.str} : () -> ()
"unreg.typed"() {a = "typed" : i32, b = "" : none, c = "x" : !unreg.str} : () -> ()

// Strings in arrays and as dictionary keys.
// CHECK-LABEL: "unreg.in_containers"() {a = ["a\22b", "\\", "\0A"], b = {"k\22q" = "w", "key\09with tab" = "v"}} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.in_containers"() {a = ["a\"b", "\\", "\n"], b = {"key\twith tab" = "v", "k\"q" = "w"}} : () -> ()
