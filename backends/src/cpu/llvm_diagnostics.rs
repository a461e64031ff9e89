//! LLVM's own diagnostics while it optimizes and generates code. Without a handler LLVM
//! prints every warning to stderr and exits the process on an error. The warnings it gives
//! for our code are missed-optimization notes ("loop not vectorized" where a loop's
//! vectorize hint could not be honoured), one per loop of a large model, which say nothing
//! a user can act on; errors must reach the caller as a [`Diagnostic`] instead of ending
//! the process. So a handler drops warnings and remarks (`TB_LLVM_REMARKS=1` prints them)
//! and collects errors, which [`take_errors`] returns after each LLVM step.

use std::cell::RefCell;
use std::ffi::{CStr, c_void};

use inkwell::context::Context as LlvmContext;
use llvm_sys::LLVMDiagnosticSeverity;
use llvm_sys::core::{
    LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription,
    LLVMGetDiagInfoSeverity,
};
use llvm_sys::prelude::LLVMDiagnosticInfoRef;

thread_local! {
    // LLVM runs the passes and the code generator on the calling thread, so the errors of
    // one compilation land in its own thread's list.
    static ERRORS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Routes `llvm`'s diagnostics through this module's handler.
pub(crate) fn install(llvm: &LlvmContext) {
    ERRORS.with(|errors| errors.borrow_mut().clear());
    // SAFETY: the handler is a plain function with no context pointer to outlive.
    unsafe { LLVMContextSetDiagnosticHandler(llvm.raw(), Some(handle), std::ptr::null_mut()) };
}

/// The errors LLVM reported since the last call, joined into one message, or `Ok`.
pub(crate) fn take_errors() -> Result<(), String> {
    let errors = ERRORS.with(|errors| std::mem::take(&mut *errors.borrow_mut()));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("LLVM reported: {}", errors.join("; ")))
    }
}

fn remarks_requested() -> bool {
    std::env::var("TB_LLVM_REMARKS").is_ok_and(|v| v == "1")
}

extern "C" fn handle(info: LLVMDiagnosticInfoRef, _context: *mut c_void) {
    // SAFETY: LLVM passes a live diagnostic; its description is a C string we must free.
    let (severity, text) = unsafe {
        let description = LLVMGetDiagInfoDescription(info);
        let text = CStr::from_ptr(description).to_string_lossy().into_owned();
        LLVMDisposeMessage(description);
        (LLVMGetDiagInfoSeverity(info), text)
    };
    match severity {
        LLVMDiagnosticSeverity::LLVMDSError => {
            ERRORS.with(|errors| errors.borrow_mut().push(text));
        }
        LLVMDiagnosticSeverity::LLVMDSWarning if remarks_requested() => {
            eprintln!("LLVM warning: {text}");
        }
        LLVMDiagnosticSeverity::LLVMDSRemark | LLVMDiagnosticSeverity::LLVMDSNote
            if remarks_requested() =>
        {
            eprintln!("LLVM remark: {text}");
        }
        _ => {}
    }
}
