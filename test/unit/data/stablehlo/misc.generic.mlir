"builtin.module"() <{sym_name = "jit_misc"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x6xf32>, tensor<3xi32>) -> (tensor<4x6xf32>, tensor<4xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg21: tensor<4x6xf32>, %arg22: tensor<3xi32>):
    %51 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %52 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %53 = "func.call"(%arg21, %51, %52) <{callee = @clip}> : (tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> tensor<4x6xf32>
    %54 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %56 = "stablehlo.power"(%53, %55) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %57 = "stablehlo.slice"(%arg21) <{limit_indices = array<i64: 4, 6>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (tensor<4x6xf32>) -> tensor<4x5xf32>
    %58 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %59 = "func.call"(%57, %58) <{callee = @_pad}> : (tensor<4x5xf32>, tensor<i32>) -> tensor<4x6xf32>
    %60 = "func.call"(%arg21, %arg22) <{callee = @_take}> : (tensor<4x6xf32>, tensor<3xi32>) -> tensor<4x3xf32>
    %61 = "stablehlo.negate"(%arg21) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %62 = "stablehlo.exponential"(%61) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %63 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %64 = "stablehlo.broadcast_in_dim"(%63) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %65 = "stablehlo.add"(%64, %62) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %66 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %67 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %68 = "stablehlo.divide"(%67, %65) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %69 = "stablehlo.exponential"(%arg21) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %70 = "stablehlo.add"(%68, %69) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %71 = "stablehlo.abs"(%arg21) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %72 = "stablehlo.log_plus_one"(%71) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %73 = "stablehlo.subtract"(%70, %72) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %74 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %76 = "func.call"(%75) <{callee = @cumsum}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %77 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<6xf32>
    %78 = "stablehlo.broadcast_in_dim"(%77) <{broadcast_dimensions = array<i64: 1>}> : (tensor<6xf32>) -> tensor<1x6xf32>
    %79 = "stablehlo.broadcast_in_dim"(%78) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x6xf32>) -> tensor<4x6xf32>
    %80 = "stablehlo.add"(%76, %79) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %81 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %82 = "stablehlo.reduce"(%arg21, %81) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      %101 = "stablehlo.maximum"(%arg25, %arg26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%101) : (tensor<f32>) -> ()
    }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %83 = "stablehlo.broadcast_in_dim"(%82) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4x1xf32>
    %84 = "func.call"(%arg21) <{callee = @argmax}> : (tensor<4x6xf32>) -> tensor<4xi32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
    %86 = "stablehlo.convert"(%85) : (tensor<4x1xi32>) -> tensor<4x1xf32>
    %87 = "stablehlo.add"(%83, %86) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %88 = "stablehlo.add"(%56, %59) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %89 = "stablehlo.add"(%88, %73) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %90 = "stablehlo.add"(%89, %80) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %91 = "stablehlo.broadcast_in_dim"(%87) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x6xf32>
    %92 = "stablehlo.add"(%90, %91) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %93 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %94 = "stablehlo.reduce"(%60, %93) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %100 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%100) : (tensor<f32>) -> ()
    }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %95 = "stablehlo.slice"(%arg21) <{limit_indices = array<i64: 1, 6>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x6xf32>) -> tensor<1x6xf32>
    %96 = "stablehlo.reshape"(%95) : (tensor<1x6xf32>) -> tensor<6xf32>
    %97 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %98 = "stablehlo.dynamic_slice"(%96, %97) <{slice_sizes = array<i64: 4>}> : (tensor<6xf32>, tensor<i32>) -> tensor<4xf32>
    %99 = "stablehlo.add"(%94, %98) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%92, %99) : (tensor<4x6xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> tensor<4x6xf32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<4x6xf32>, %arg19: tensor<f32>, %arg20: tensor<f32>):
    %45 = "stablehlo.convert"(%arg19) : (tensor<f32>) -> tensor<f32>
    %46 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %47 = "stablehlo.maximum"(%46, %arg18) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %48 = "stablehlo.convert"(%arg20) : (tensor<f32>) -> tensor<f32>
    %49 = "stablehlo.broadcast_in_dim"(%48) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %50 = "stablehlo.minimum"(%49, %47) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    "func.return"(%50) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x5xf32>, tensor<i32>) -> tensor<4x6xf32>, res_attrs = [{}], sym_name = "_pad", sym_visibility = "private"}> ({
  ^bb0(%arg16: tensor<4x5xf32>, %arg17: tensor<i32>):
    %43 = "stablehlo.convert"(%arg17) : (tensor<i32>) -> tensor<f32>
    %44 = "stablehlo.pad"(%arg16, %43) <{edge_padding_high = array<i64: 0, 1>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x6xf32>
    "func.return"(%44) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x6xf32>, tensor<3xi32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "_take", sym_visibility = "private"}> ({
  ^bb0(%arg12: tensor<4x6xf32>, %arg13: tensor<3xi32>):
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %21 = "stablehlo.compare"(%arg13, %20) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %22 = "stablehlo.constant"() <{value = dense<6> : tensor<i32>}> : () -> tensor<i32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %24 = "stablehlo.add"(%arg13, %23) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %25 = "func.call"(%21, %24, %arg13) <{callee = @_where}> : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xi32>) -> tensor<3x1xi32>
    %27 = "stablehlo.constant"() <{value = dense<5> : tensor<1xi32>}> : () -> tensor<1xi32>
    %28 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %29 = "stablehlo.broadcast_in_dim"(%28) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x1xi32>
    %30 = "stablehlo.compare"(%26, %29) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi1>
    %31 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 1>}> : (tensor<1xi32>) -> tensor<1x1xi32>
    %32 = "stablehlo.broadcast_in_dim"(%31) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xi32>) -> tensor<3x1xi32>
    %33 = "stablehlo.compare"(%26, %32) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi1>
    %34 = "stablehlo.and"(%30, %33) : (tensor<3x1xi1>, tensor<3x1xi1>) -> tensor<3x1xi1>
    %35 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %36 = "stablehlo.reduce"(%34, %35) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg14: tensor<i1>, %arg15: tensor<i1>):
      %42 = "stablehlo.and"(%arg14, %arg15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%42) : (tensor<i1>) -> ()
    }) : (tensor<3x1xi1>, tensor<i1>) -> tensor<3xi1>
    %37 = "stablehlo.gather"(%arg12, %26) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x3xf32>
    %38 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xi1>) -> tensor<4x3xi1>
    %39 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %41 = "stablehlo.select"(%38, %37, %40) : (tensor<4x3xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%41) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<3xi1>, %arg10: tensor<3xi32>, %arg11: tensor<3xi32>):
    %18 = "stablehlo.select"(%arg9, %arg10, %arg11) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    "func.return"(%18) : (tensor<3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x6xf32>) -> tensor<4x6xf32>, res_attrs = [{}], sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg8: tensor<4x6xf32>):
    %17 = "func.call"(%arg8) <{callee = @cumsum_0}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    "func.return"(%17) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x6xf32>) -> tensor<4x6xf32>, sym_name = "cumsum_0", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<4x6xf32>):
    %13 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %15 = "stablehlo.reduce_window"(%arg5, %14) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [5, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 6>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %16 = "stablehlo.add"(%arg6, %arg7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%16) : (tensor<f32>) -> ()
    }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    "func.return"(%15) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x6xf32>) -> tensor<4xi32>, sym_name = "argmax", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x6xf32>):
    %0 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x6xi32>
    %1 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %3:2 = "stablehlo.reduce"(%arg0, %0, %1, %2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>, %arg4: tensor<i32>):
      %4 = "stablehlo.compare"(%arg1, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = "stablehlo.compare"(%arg1, %arg1) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = "stablehlo.or"(%4, %5) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %7 = "stablehlo.compare"(%arg1, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = "stablehlo.compare"(%arg2, %arg4) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %9 = "stablehlo.and"(%7, %8) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %10 = "stablehlo.or"(%6, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %11 = "stablehlo.select"(%6, %arg1, %arg3) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %12 = "stablehlo.select"(%10, %arg2, %arg4) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%11, %12) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
    "func.return"(%3#1) : (tensor<4xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
