pub(crate) mod te_to_loop;
