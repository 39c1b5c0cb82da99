//! Crate-internal macros.

/// Invokes `$m!` once per tuple arity from 0 to 16 (bevy's limit for system parameters), with type parameters `A`, `B`, ... (bevy's
/// `all_tuples!`, specialised to the one list of names every tuple impl here uses).
macro_rules! all_tuples {
    ($m:ident) => {
        $m!();
        $m!(A);
        $m!(A, B);
        $m!(A, B, C);
        $m!(A, B, C, D);
        $m!(A, B, C, D, E);
        $m!(A, B, C, D, E, F);
        $m!(A, B, C, D, E, F, G);
        $m!(A, B, C, D, E, F, G, H);
        $m!(A, B, C, D, E, F, G, H, I);
        $m!(A, B, C, D, E, F, G, H, I, J);
        $m!(A, B, C, D, E, F, G, H, I, J, K);
        $m!(A, B, C, D, E, F, G, H, I, J, K, L);
        $m!(A, B, C, D, E, F, G, H, I, J, K, L, M);
        $m!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
        $m!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
        $m!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);
    };
}

pub(crate) use all_tuples;
