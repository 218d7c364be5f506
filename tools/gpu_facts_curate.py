#!/usr/bin/env python3
"""Curated GPU facts from the sweep data: data/gpu/sweep/*.jsonl -> data/gpu/facts.tsv.

Each fact names its sweep cases; its verdict and measured error are read from the data (the
script fails if a named case is not measured that way: wrong / init_failed, or ok for an `ok`
fact). `fact(..., some=True)` keeps only the named cases measured wrong (at least one must be):
for candidate lists that mix measured and not-yet-measured cases. Then run tools/gpu_facts.py.
"""
import json
D={}
for rt in ('native-2.3.0','js-2.5.3'):
    for l in open(f'data/gpu/sweep/{rt}__nvidia-h200.jsonl'):
        r=json.loads(l); D[(rt,r['case'],r['precision'])]=r
def rows(rt, cases, prec):
    return [D[(rt,c,p)] for c in cases for p in (('fp32','fp16') if prec=='any' else (prec,)) if (rt,c,p) in D]
def err(rt, cases, prec, ok=False):
    cs=rows(rt,cases,prec)
    assert cs, (rt,cases,'not measured')
    st=[r['status'] for r in cs]
    corr=[r['corr'] for r in cs if r.get('corr') is not None]; mx=[r['max_abs'] for r in cs if r.get('max_abs') is not None]
    if ok:
        assert all(s=='ok' for s in st), (rt,cases,st)
        return 'ok', f"max_abs<={max(mx):.3g}" if mx else '-'
    if all(s=='init_failed' for s in st): return 'init_failed', (cs[0].get('message') or 'kernel building failed')[:120]
    assert all(s=='wrong' for s in st), (rt,cases,st)
    e=f"corr={min(corr):.3g}..{max(corr):.3g}" if corr else ""
    if mx: e+=f" max_abs<={max(mx):.3g}"
    return 'wrong', e.strip()
F=[]  # id, op, when, prec, cases, fix, msg, runtimes
def fact(i,op,when,prec,cases,fix,msg,rts=('native-2.3.0','js-2.5.3'),ok=False,some=False):
    for rt in rts:
        cs=cases
        if some:
            cs=[c for c in cases if any(r['status']=='wrong' for r in rows(rt,[c],prec))]
            assert cs, (i,rt,'none of the candidate cases measured wrong')
        v,e=err(rt,cs,prec,ok)
        F.append([i,rt,'nvidia-h200',op,when,prec,v,e,','.join(cs),fix,msg])
ew=[f"ew_{o}_r{a}_r{b}_const" for o in ('add','sub','mul','div','maximum') for a,b in ((1,2),(1,3),(1,4),(2,3),(2,4),(3,4))]+['ew_add_swin_24x49x49_const','ew_add_swin_4x7x7_1x4x7x7_const','ew_add_swin_4x7x7_2x4x7x7_const','ew_add_const_r4_rt_r2']
ew=[c for c in ew if ('native-2.3.0',c,'fp32') in D]
fact('numerics.mixed_rank_const','ADD|SUB|MUL|DIV|MAXIMUM|MINIMUM','lo.const=0 hi.const=1 lo.dim0>1 bcast_meet>1','any',ew,'fix.broadcast.rank4',
 'a runtime operand of lower rank than the constant it meets is misaligned on the GPU; gpuclean fix reshapes it to the constant\'s rank and TILEs it to the output shape at rank 4 (measured right)')
bmm_lo=[f"bmm_{k}_ax{x}_ay{y}" for k in ('rank4_rhs_rank3','rhs_rank2') for x in (0,1) for y in (0,1)]
fact('numerics.bmm_batch_broadcast','BATCH_MATMUL','lo.rank>=2 in1.const=0 in1.producer!=DEQUANTIZE','any',bmm_lo,'fix.bmm.batch_explicit','BATCH_MATMUL with operands of different ranks (a broadcast batch) computes wrong numbers on the GPU')
fact('numerics.bmm_batch_broadcast','BATCH_MATMUL','in0.rank=3 in1.rank=3 in0.dim0=1 in1.dim0>1','any',[f"bmm_lhs_b1_ax{x}_ay{y}" for x in (0,1) for y in (0,1)],'fix.bmm.batch_explicit','BATCH_MATMUL whose lhs batch 1 broadcasts computes wrong numbers on the GPU')
fact('numerics.bmm_batch_broadcast','BATCH_MATMUL','in0.rank=3 in1.rank=3 in1.dim0=1 in0.dim0>1','any',[f"bmm_rhs_b1_ax{x}_ay{y}" for x in (0,1) for y in (0,1)],'fix.bmm.batch_explicit','BATCH_MATMUL whose rhs batch 1 broadcasts computes wrong numbers on the GPU')
fact('numerics.bmm_const_rank2_adj','BATCH_MATMUL','in1.const=1 in1.rank=2 opt.adj_x=1','any',['bmm_const_rhs_rank2_ax1_ay0','bmm_const_rhs_rank2_ax1_ay1'],'fix.bmm.batch_explicit','BATCH_MATMUL with a constant rank-2 rhs and adj_x computes wrong numbers on the GPU')
fact('numerics.bmm_const_rank2_adj','BATCH_MATMUL','in1.const=1 in1.rank=2 opt.adj_y=1','any',['bmm_const_rhs_rank2_ax0_ay1','bmm_const_rhs_rank2_ax1_ay1'],'fix.bmm.batch_explicit','BATCH_MATMUL with a constant rank-2 rhs and adj_y computes wrong numbers on the GPU')
fact('numerics.dwconv_k1_multiplier','DEPTHWISE_CONV_2D','in1.dim1=1 in1.dim2=1 opt.depth_multiplier>1','any',['dwconv_k1_s1_d1_same_m2_c4','dwconv_k1_s1_d1_same_m4_c4'],'fix.depthwise.k1_multiplier','a 1x1 DEPTHWISE_CONV_2D with depth_multiplier > 1 computes wrong numbers on the GPU')
fact('numerics.cumsum_exclusive','CUMSUM','opt.exclusive=1','any',['cumsum_1x3x5x8_axis3_ex1_rev0','cumsum_6x10_axis1_ex1_rev0','cumsum_1x3x5x8_axis1_ex1_rev0','cumsum_1x3x5x8_axis3_ex1_rev1','cumsum_6x10_axis1_ex1_rev1'],'fix.cumsum.canon','the GPU\'s CUMSUM ignores exclusive (it returns the inclusive sums)')
fact('numerics.cumsum_reverse','CUMSUM','opt.reverse=1','any',['cumsum_1x3x5x8_axis3_ex0_rev1','cumsum_6x10_axis1_ex0_rev1','cumsum_1x3x5x8_axis3_ex1_rev1','cumsum_6x10_axis1_ex1_rev1'],'fix.cumsum.canon','the GPU\'s CUMSUM computes reverse sums wrong')
fact('numerics.cumsum_axis0','CUMSUM','axis=0','any',['cumsum_6x10_axis0_ex0_rev0'],'fix.cumsum.canon','the GPU\'s CUMSUM along axis 0 computes wrong numbers')
fact('numerics.output_also_consumed','FULLY_CONNECTED','out0.graph_output=1 out0.consumed>=1','any',['alias_fc_add'],'fix.output.copy','a FULLY_CONNECTED output that is both a model output and read by another op comes back wrong (LiteRT#8599)')
fact('numerics.fc_runtime_weights','FULLY_CONNECTED','in1.const=0 in1.producer=input','any',['fc_r2_3x16_keep0_runtime_w','fc_r3_2x3x16_keep1_runtime_w'],'fix.fc.runtime_bmm','FULLY_CONNECTED with runtime (non-constant) weights computes wrong numbers on the GPU')
fact('numerics.tconv_k3_s2_same','TRANSPOSE_CONV','in1.dim1=3|5 in1.dim2=3|5 opt.stride_h=2 opt.padding=0','any',['tconv_k3_s2_same','tconv_k3_s2_same_bias','tconv_k5_s2_same'],'fix.transpose_conv.valid_crop','TRANSPOSE_CONV 3x3 or 5x5 stride 2 SAME computes wrong numbers on the GPU (2x2 / 4x4 stride 2 SAME and 3x3 stride 2 VALID were right); gpuclean fix computes it as a VALID TRANSPOSE_CONV and a SLICE (measured right on the H200 for 3x3 and 5x5)')
fact('numerics.pad_rank3','PAD|PADV2|MIRROR_PAD','in0.rank=3','any',['pad_r3_channels','pad_r3_hw','pad_r3_hw_asym','pad_r3_all','padv2_r3_channels','padv2_r3_hw','mirror_pad_reflect_r3_channels','mirror_pad_reflect_r3_hw','mirror_pad_reflect_r3_hw_asym'],'fix.pad.rank4','PAD of a rank-3 tensor computes wrong numbers on the GPU')
fact('numerics.pad_batch','PAD','in0.rank=4 in0.dim0=1 out0.dim0>1','any',['pad_r4_batch'],'fix.pad.batch','PAD along the batch axis computes wrong numbers on the GPU')
fact('numerics.densify_feeds_gpu','FULLY_CONNECTED','in1.producer=DENSIFY in1.producer_gpu=0','any',['densify_fc','densify_fc_block1x4','densify_fc_block1x4_uint8_index'],'fix.densify','FULLY_CONNECTED weights from a DENSIFY the CPU runs are read as garbage on the GPU',rts=('native-2.3.0',))
fact('numerics.densify_feeds_gpu','FULLY_CONNECTED|ADD','in*.producer=DEQUANTIZE in*.producer_gpu=0 in*.producer.in0.producer=DENSIFY','any',['densify_fc_fp16','densify_add_fp16'],'fix.densify','an operand DEQUANTIZEd on the CPU from fp16 weights a DENSIFY decodes is read as garbage on the GPU',rts=('native-2.3.0',))
fact('numerics.fc_weights_dequant_cpu','FULLY_CONNECTED','in1.producer=DEQUANTIZE in1.producer_gpu=0','any',['dequant_int8_per_channel_fc'],'fix.const_fold','FULLY_CONNECTED weights DEQUANTIZEd on the CPU (per-channel int8: DEQUANTIZE version 5 is refused) are read wrong on the GPU',rts=('native-2.3.0',))
fact('init.split_concat','CONCATENATION','in*.producer=SPLIT|SPLIT_V','any',['split_axis1_n2_combined','split_v_axis1_n2_combined','split_axis3_n2_combined','split_v_axis3_n2_combined'],'fix.split.slices','CONCATENATION of SPLIT outputs fails kernel building: the whole model falls back to the CPU')
fact('init.gather_const_indices','GATHER','in1.const=1 in1.rank=1 in1.numel>1 in0.const=0','any',['gather_rtp_idxconst1d_axis0','gather_rtp_idxconst1d_axis1','gather_rtp_idxconst1d_axis2'],'fix.gather.const_indices','GATHER with constant 1-D indices fails kernel building on LiteRT.js ("Unable to parse bc coord for BATCH axis")',rts=('js-2.5.3',))
fact('ok.gather_const_indices','GATHER','in1.const=1 in1.rank=1 in0.const=0','any',['gather_rtp_idxconst1d_axis0','gather_rtp_idxconst1d_axis1','gather_rtp_idxconst1d_axis2'],'-','GATHER with constant 1-D indices builds and is exact on native 2.3.0 (LiteRT.js 2.5.3 fails to build it)',rts=('native-2.3.0',),ok=True)
fact('numerics.unpack_concat','CONCATENATION','in0.producer=UNPACK in0.producer.opt.axis=1','any',['unpack_axis1_n2_combined'],'fix.unpack.slices','CONCATENATION of the outputs of an UNPACK along axis 1 computes wrong numbers on the GPU (UNPACK along the last axis was right)')
fact('init.dequant_int8_matmul','FULLY_CONNECTED|BATCH_MATMUL','in1.producer=DEQUANTIZE in1.producer_gpu=1 in1.producer.in0.dtype=INT8','any',['dequant_int8_fc','dequant_int8_bmm'],'fix.dequantize.const','FULLY_CONNECTED / BATCH_MATMUL weights DEQUANTIZEd on the GPU from per-tensor int8 fail kernel building: the whole model falls back to the CPU')
fact('numerics.conv_group_out','CONV_2D','groups>1 group_out<4','any',['conv2d_k3x3_s2_d1_valid_g3','conv2d_k3x3_s2_d1_valid_g2_c8x4','conv2d_k3x3_s1_d1_same_g4_c8x4','conv2d_k3x3_s1_d1_same_g2_c8x4','conv2d_k3x3_s1_d1_same_g2_c8x6','conv2d_k1x1_s1_d1_same_g8_c16x8'],'fix.conv.group_dense','grouped CONV_2D with fewer than 4 output channels per group computes wrong numbers on the GPU (measured: 1, 2 and 3 per group, 2 to 8 groups; 4 and 8 per group were right); gpuclean fix computes it as one CONV_2D with the block-diagonal dense filter (measured right on the H200, both runtimes, fp32 and fp16)')
fact('numerics.cumsum_axis_negative','CUMSUM','axis_raw<0','any',['cumsum_6x10_axism1_ex0_rev0','cumsum_6x10_axism1_ex1_rev0'],'fix.cumsum.canon','the GPU\'s CUMSUM with a negative axis computes wrong numbers (the same axis written as positive was right)')
# Equal ranks: a runtime operand of rank 2 against a constant of the same rank whose dim 0 is > 1
# (densify_add's baked form, ADD([4,16], const [4,16])) is wrong; const [1,5] with runtime [4,5]
# was right (ew_*_r2_r2_const), as were rank 3 [3,4,5] + const [1,4,5] and every rank 4.
eq_cases=['densify_add__fixed','densify_add_uint8_index__fixed','ew_add_eq_r2_same16_const','ew_add_eq_r1_same_const','ew_add_eq_r3_same_const','ew_add_eq_r3_rtb_const']+[f"ew_{o}_eq_r2_{k}_const" for o in ('add','mul') for k in ('same','rtb')]
EQ_MSG='a runtime operand against a constant of the same rank (1 to 3) whose first dim is > 1 computes wrong numbers on the GPU (a constant [1,...] and every rank-4 pair were right); gpuclean fix does the op at rank 4 and reshapes back (measured right on the H200: ranks 1-3, constant first or second)'
fact('numerics.equal_rank_const','ADD|SUB|MUL|DIV|MAXIMUM|MINIMUM','bcast=1x1|2x2|3x3 in0.const=0 in1.const=1 in1.dim0>1','any',eq_cases,'fix.broadcast.rank4',EQ_MSG,some=True)
fact('numerics.equal_rank_const','ADD|SUB|MUL|DIV|MAXIMUM|MINIMUM','bcast=1x1|2x2|3x3 in0.const=1 in1.const=0 in0.dim0>1','any',['ew_sub_eq_r2_cfirst_const'],'fix.broadcast.rank4',EQ_MSG)
# the same with fp16 weights: DEQUANTIZE(fp16 constant) meets the op as a constant on the GPU
fact('numerics.equal_rank_const','ADD|SUB|MUL|DIV|MAXIMUM|MINIMUM','bcast=1x1|2x2|3x3 in0.const=0 in1.producer=DEQUANTIZE in1.producer.in0.const=1 in1.dim0>1','any',['dequant_fp16_add_r1','dequant_fp16_add_r2','dequant_fp16_add_r3'],'fix.broadcast.rank4',EQ_MSG)
fact('numerics.equal_rank_const','ADD|SUB|MUL|DIV|MAXIMUM|MINIMUM','bcast=1x1|2x2|3x3 in1.const=0 in0.producer=DEQUANTIZE in0.producer.in0.const=1 in0.dim0>1','any',['dequant_fp16_add_r2_cfirst'],'fix.broadcast.rank4',EQ_MSG)
fact('numerics.cast_fp16_int_range','CAST','in0.dtype=INT32 out0.dtype=FLOAT32','fp16',['cast_i2f_add_1x32_edge'],'-','int32 values beyond 2048 lose precision in fp16 storage (off by up to 15.5)')
fact('numerics.cast_fp16_float_to_int','CAST','in0.dtype=FLOAT32 out0.dtype=INT32','fp16',['cast_f2i_1x32_edge','cast_f2i_1x2x4x4_edge'],'-','float values beyond fp16 range saturate before the cast to int32 at fp16')
# Whole corpus models measured on the device (data/gpu/fp16/, GPU vs CPU of the same runtime;
# one-op models, so the op is the finding): evidence corpus:<model>. Verdict from the data:
# crashed (the runtime's process died), wrong (an output with corr < 0.999 or max|diff| above
# 1e-3 of the CPU output's range, at least 1e-4), never assumed.
C={}
for rt in ('native-2.3.0','js-2.5.3'):
    for l in open(f'data/gpu/fp16/{rt}__nvidia-h200.jsonl'):
        r=json.loads(l)
        if r.get('kind')=='corpus': C[(rt,r['model'],r['mode'])]=r
def corpus_fact(i,op,when,model,rt,verdict,fix,msg):
    cs=[C[(rt,model,m)] for m in ('gpu-fp32','gpu-fp16') if (rt,model,m) in C]
    assert cs, (i,rt,model,'not measured')
    if verdict=='crashed':
        assert all(r['status']=='crashed' for r in cs), (i,rt,[r['status'] for r in cs])
        e='the runtime crashed ('+', '.join(r['mode'][4:] for r in cs)+')'
    else:
        bad=[(o.get('corr'),o['max_abs']) for r in cs if r['status']=='ok' and not r.get('fallback_all') for o in r['outputs']
             if (o.get('corr') is not None and o['corr']<0.999) or o['max_abs']>max(1e-3*o.get('ref_max_abs',0),1e-4)]
        assert verdict=='wrong' and len(bad)==sum(len(r['outputs']) for r in cs) and bad, (i,rt,model,bad)
        corr=[c for c,_ in bad if c is not None]
        e=(f"corr={min(corr):.3g}..{max(corr):.3g} " if corr else '')+f"max_abs<={max(m for _,m in bad):.3g}"
    F.append([i,rt,'nvidia-h200',op,when,'any',verdict,e,'corpus:'+model,fix,msg])
corpus_fact('numerics.group_norm_composite','STABLEHLO_COMPOSITE','composite=odml.group_norm','group_norm_2_groups_op','js-2.5.3','wrong','-',
 'the GPU\'s odml.group_norm composite computes wrong numbers on LiteRT.js (measured on a 2-group [2,4] group norm, CPU output all zeros: the GPU\'s up to 1.58)')
corpus_fact('crash.group_norm_composite','STABLEHLO_COMPOSITE','composite=odml.group_norm','group_norm_2_groups_op','native-2.3.0','crashed','-',
 'the native runtime crashes compiling an odml.group_norm composite for the GPU (measured on a 2-group [2,4] group norm, fp32 and fp16)')
corpus_fact('numerics.fc_int4_blockwise','FULLY_CONNECTED','in1.dtype=INT4 in1.quant=blockwise','qwen_fc_blockwise_quantized','js-2.5.3','wrong','-',
 'FULLY_CONNECTED with blockwise-quantized INT4 weights computes wrong numbers on LiteRT.js\'s GPU (measured: corr 0.12 on a [1,1,1024] x [1024,1024] FC)')
corpus_fact('crash.fc_int4_blockwise','FULLY_CONNECTED','in1.dtype=INT4 in1.quant=blockwise','qwen_fc_blockwise_quantized','native-2.3.0','crashed','-',
 'the native runtime crashes compiling a FULLY_CONNECTED with blockwise-quantized INT4 weights for the GPU (fp32 and fp16)')
# LiteRT.js at fp16: 3x3 stride-1 CONV_2D with 64 input channels at 28x28 / 56x56 (resnet18's
# layer1, found by gpuclean bisect) is wrong; 32 channels at 56x56, 64 at 16x16, 1x1 and stride 2
# were right, and native was right everywhere (family conv_wide)
fact('numerics.conv3x3_wide_fp16_js','CONV_2D','groups=1 in1.dim1=3 in1.dim2=3 opt.stride_h=1 opt.stride_w=1 opt.dilation_h_factor=1 opt.dilation_w_factor=1 in0.dim3>=64 in1.dim0>=64 in0.dim1>=28 in0.dim2>=28','fp16',
 ['conv2d_k3x3_s1_d1_same_c64x64_hw56_relu','conv2d_k3x3_s1_d1_same_c64x128_hw56_relu','conv2d_k3x3_s1_d1_same_c64x64_hw56','conv2d_k3x3_s1_d1_same_c64x64_hw28_relu'],'fix.conv.split_out_channels',
 'LiteRT.js at fp16 computes a 3x3 stride-1 CONV_2D with >= 64 input and output channels on a >= 28x28 input wrong (ML Drift\'s Winograd convs; measured 64 channels at 28x28 and 56x56; 32 channels at 56x56 and 64 at 16x16 were right, native right; grouped ones were right: 2, 6, 8 and 13 groups of 8 to 64 channels at 28x28 and 56x56, regnet_y_400mf geometry, 2026-12-02); gpuclean fix --runtime js --precision fp16 splits it into convs of <= 32 output channels and a CONCATENATION (measured right on the H200: the 4 cases, and resnet18 corr 0.0011 -> 1.0000)',rts=('js-2.5.3',))
fact('ok.conv3x3_wide_fp16_native','CONV_2D','groups=1 in1.dim1=3 in1.dim2=3 opt.stride_h=1 opt.stride_w=1 opt.dilation_h_factor=1 opt.dilation_w_factor=1 in0.dim3>=64 in1.dim0>=64 in0.dim1>=28 in0.dim2>=28','fp16',
 ['conv2d_k3x3_s1_d1_same_c64x64_hw56_relu','conv2d_k3x3_s1_d1_same_c64x128_hw56_relu','conv2d_k3x3_s1_d1_same_c64x64_hw56','conv2d_k3x3_s1_d1_same_c64x64_hw28_relu'],'-',
 'the same convolutions were right on the native runtime at fp16',rts=('native-2.3.0',),ok=True)
fact('ok.conv3x3_wide_grouped_fp16_js','CONV_2D','groups>1 in1.dim1=3 in1.dim2=3 opt.stride_h=1 opt.stride_w=1 in0.dim3>=48 in0.dim1>=28 in0.dim2>=28','fp16',
 ['conv2d_k3x3_s1_d1_same_g13_c104x104_hw28_relu','conv2d_k3x3_s1_d1_same_g6_c48x48_hw56_relu','conv2d_k3x3_s1_d1_same_g8_c64x64_hw28_relu','conv2d_k3x3_s1_d1_same_g2_c64x64_hw56_relu','conv2d_k3x3_s1_d1_same_g2_c128x128_hw28_relu'],'-',
 'grouped 3x3 stride-1 convolutions of the same widths were right on LiteRT.js at fp16 (2 to 13 groups, 8 to 64 channels per group)',rts=('js-2.5.3',),ok=True)
hdr=[l for l in open('data/gpu/facts.tsv') if l.startswith('#')]
with open('data/gpu/facts.tsv','w') as f:
    f.writelines(hdr)
    for r in F: f.write('\t'.join(r)+'\n')
print(len(F),'rows')

