// A two-layer perceptron in TensorBind's graph dialect, as `tb-translate --import-onnx`
// will produce it: generic MLIR syntax, ONNX semantics (matmul, broadcasting add, relu,
// softmax), and the weights stored as `dense_resource` blobs in the trailer at the end.
// The graph dialect is unregistered upstream, so check it with
//   mlir-opt-22 --allow-unregistered-dialect examples/mlp.mlir
// and run it with ./scripts/example.sh.

"func.func"() <{function_type = (tensor<2x16xf32>) -> tensor<2x4xf32>, sym_name = "mlp"}> ({
^bb0(%input: tensor<2x16xf32>):
  %fc1_w = "graph.constant"() <{value = dense_resource<mlp_fc1_weight> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %fc1_b = "graph.constant"() <{value = dense_resource<mlp_fc1_bias> : tensor<8xf32>}> : () -> tensor<8xf32>
  %fc2_w = "graph.constant"() <{value = dense_resource<mlp_fc2_weight> : tensor<8x4xf32>}> : () -> tensor<8x4xf32>
  %fc2_b = "graph.constant"() <{value = dense_resource<mlp_fc2_bias> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.matmul"(%input, %fc1_w) : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
  %1 = "graph.add"(%0, %fc1_b) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = "graph.relu"(%1) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = "graph.matmul"(%2, %fc2_w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %4 = "graph.add"(%3, %fc2_b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %5 = "graph.softmax"(%4) <{axis = 1 : i64}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
  "func.return"(%5) : (tensor<2x4xf32>) -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      mlp_fc1_weight: "0x04000000D0B3593E24977F3E8351493E4FAF943D52B89EBD287E4CBE92CB7FBE07F056BEEEEBC0BD1CEB623DDB8A3D3EB6F37D3EAEB6623E1F85EB3D27C206BD1FF42CBE23DB79BE7AA56CBE03090ABE787A253C9A081B3E7DD0733E34A2743E1B2F1D3E17B7513C4BC807BE569F6BBE6C787ABE69002FBE4ED111BDD49AE63D1C7C613E5B427E3EB7623F3E68916D3D36CDBBBDCF6655BEC9E57FBE96214EBE0AD7A3BD97908F3DDE93473EB7627F3ED1225B3ECEAACF3DEFC943BD7E1D38BE5BD37CBE304C66BEB5A6F9BD3B70CE3CB003273E4703783EB29D6F3EF2B0103E99BB16BB189514BE204171BEB4C876BE2F6E23BE55C1A8BCEEEB003E7958683EA3017C3E6ABC343E575B313DD044D8BDF6975DBE12147FBEA69B44BE4B5986BDE8D9AC3D60E5503E0000803E3CBD523EC5FEB23D6E3480BD257542BE6DC57EBE2D215FBED200DEBDC1A8243DB37B323E5A647B3E43AD693EB8AF033E728A8EBCD3DE20BEFDF675BE454772BEAB3E17BE5839B4BB5F070E3E20636E3EFED4783ED578293E67D5E73CB3EAF3BD2FDD64BE363C7DBEFE433ABE857C50BD5EBAC93D637F593E24977F3E27A0493E74B5953D9BE69DBD832F4CBE92CB7FBE742457BEA5BDC1BDAE47613D363C3D3E7FD97D3E1CEB623ED656EC3DB81E05BD7AA52CBEECC079BEE8D96CBEDE710ABE52491D3CBE9F1A3E0F9C733E6ABC743EF6971D3ED044583C",
      mlp_fc1_bias: "0x040000009D11653EFD87F43D4260E5BC302A29BEC7BA78BE8D976EBE04560EBEE71DA73B",
      mlp_fc2_weight: "0x0400000011C7BA3CB6F3FDBD8B6C67BE7F6A7CBED95F36BE5AF539BD3D2CD43D9A775C3E80487F3EA60A463E4CA68A3DE78CA8BD97904FBE000080BE061254BEC74BB7BDFE65773D2506413E00917E3E8941603E6519E23DE3A51BBD45D830BE7FFB7ABE31996ABECBA105BE6C09793C2D211F3EB459753EC5FE723E50FC183E4850FC3B",
      mlp_fc2_bias: "0x040000005F984CBE92CB7FBED0D556BE80B7C0BD"
    }
  }
#-}
