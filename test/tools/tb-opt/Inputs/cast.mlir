%0 = "builtin.unrealized_conversion_cast"() : () -> i32
