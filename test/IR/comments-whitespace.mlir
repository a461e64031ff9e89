// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Comments and unusual whitespace are not part of the printed output.

// CHECK: "builtin.module"() ({

// A comment at the end of a line, and tabs, carriage returns, blank lines.
// CHECK-LABEL: "unreg.spaced"() {a = 1 : i32, b = 2 : i64} : () -> ()
// CHECK-NEXT:   "unreg.tabbed"() {x = "tab"} : () -> ()
// CHECK-NEXT:   "unreg.crlf"() : () -> ()
"unreg.spaced"  (  )   {  a  =  1  :  i32  ,b=2}   :   (  )   ->   (  )   // trailing comment

	"unreg.tabbed"()	{x	=	"tab"}	:	()	->	()

"unreg.crlf"() : () -> ()

// An operation spread over many lines, with comments in between.
// CHECK-LABEL: %0:2 = "unreg.multi_line"() {attr = [1, 2, 3]} : () -> (i32, i32)
%0:2 =
  "unreg.multi_line"
  (
  )
  // comment inside an operation
  {
    attr = [1,
            2,   // comment inside an array
            3]
  }
  :
  (
  )
  ->
  (i32,
   i32)

// Everything on one line, including a region.
// CHECK-LABEL: "unreg.one_line"(%0#0) ({
// CHECK-NEXT:   ^bb0(%arg0: i32):
// CHECK-NEXT:     "unreg.use"(%arg0, %0#1) : (i32, i32) -> ()
// CHECK-NEXT:   }) : (i32) -> ()
"unreg.one_line"(%0#0)({^bb0(%a:i32):"unreg.use"(%a,%0#1):(i32,i32)->()}):(i32)->()

// A comment containing things that look like syntax: "unreg.fake"() ({ // ---x
// CHECK-LABEL: "unreg.after_tricky_comment"() : () -> ()
"unreg.after_tricky_comment"() : () -> ()

// Comment-like text inside a string is not a comment.
// CHECK-LABEL: "unreg.string_with_slashes"() {s = "// not a comment"} : () -> ()
"unreg.string_with_slashes"() {s = "// not a comment"} : () -> ()

// A file may end without a final newline.
// CHECK-LABEL: "unreg.no_final_newline"() : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.no_final_newline"() : () -> ()