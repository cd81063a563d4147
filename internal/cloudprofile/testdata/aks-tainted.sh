az aks nodepool add \
--resource-group myRG --cluster-name myCluster \
--name winnp --os-type Windows --os-sku Windows2022 \
--node-count 2 --node-vm-size Standard_D4s_v5 \
--node-taints os=windows:NoSchedule
